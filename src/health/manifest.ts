import type { Feature } from "../core/context.js";
import { healthRoutes } from "./routes.js";

/** /healthz and /readyz. */
export const health: Feature = { name: "health", routes: [{ plugin: healthRoutes }] };
