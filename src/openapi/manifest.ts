import type { Feature } from "../core/context.js";
import { openApiRoutes } from "./routes.js";

/** /openapi.yaml, /.well-known/openapi.yaml, /openapi.json. */
export const openapi: Feature = { name: "openapi", routes: [{ plugin: openApiRoutes }] };
