import type { Feature } from "../core/context.js";
import { openApiRoutes } from "./routes.js";

/** /openapi.yaml, /.well-known/openapi.yaml, /openapi.json. */
export const openapi: Feature = {
  name: "openapi",
  resources: [
    {
      path: "/openapi.yaml",
      title: "OpenAPI description",
      summary:
        "OpenAPI 3.1 description of every public API endpoint (also at /.well-known/openapi.yaml and /openapi.json).",
      section: "Data",
    },
  ],
  routes: [{ plugin: openApiRoutes }],
};
