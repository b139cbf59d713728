import type { Feature } from "../core/context.js";
import { apiKeyCommands } from "./cli.js";
import { open311Routes } from "./routes.js";

/** The Open311 GeoReport v2 API under /api/v2. */
export const open311: Feature = {
  name: "open311",
  resources: [
    {
      path: "/api/v2/discovery.json",
      title: "Open311 GeoReport v2 discovery",
      summary: "Where the Open311 endpoints are and which formats they speak (JSON and XML).",
      section: "APIs",
    },
    {
      path: "/api/v2/services.json",
      title: "Open311 services",
      summary: "The report categories, with extra questions described at /api/v2/services/{service_code}.json.",
      section: "APIs",
    },
    {
      path: "/api/v2/requests.json",
      title: "Open311 requests",
      summary: "Public reports, newest first; POST with an api_key to submit one.",
      section: "APIs",
    },
  ],
  routes: [{ plugin: open311Routes, prefix: "/api/v2" }],
  commands: apiKeyCommands,
};
