import type { Feature } from "../core/context.js";
import { developerRoutes } from "./routes.js";

/** /developers: the APIs and data explained. */
export const developers: Feature = { name: "developers", routes: [{ plugin: developerRoutes }] };
