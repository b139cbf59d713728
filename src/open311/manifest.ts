import type { Feature } from "../core/context.js";
import { apiKeyCommands } from "./cli.js";
import { open311Routes } from "./routes.js";

/** The Open311 GeoReport v2 API under /api/v2. */
export const open311: Feature = {
  name: "open311",
  routes: [{ plugin: open311Routes, prefix: "/api/v2" }],
  commands: apiKeyCommands,
};
