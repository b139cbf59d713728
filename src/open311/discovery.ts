import type { Civic } from "../core/context.js";
import type { Discovery } from "./schemas.js";

export const GEOREPORT_V2 = "http://wiki.open311.org/GeoReport_v2";

/**
 * When the API's services or definitions last changed. Categories are loaded from the demo village or by the
 * operator; bump this when the API or the category set changes, so clients refresh cached service definitions.
 */
export const API_CHANGESET = "2026-11-22T00:00:00Z";

/** The Open311 service discovery document: who runs the endpoint, how to get a key, and the endpoint itself. */
export function discoveryDocument(civic: Civic): Discovery {
  const { village, baseUrl } = civic.config;
  return {
    changeset: API_CHANGESET,
    contact: `${village.name} community platform, run by volunteers: ${village.contactEmail}. Not an emergency service.`,
    key_service: `Reading needs no key. To submit reports (POST requests), ask the volunteers for an API key at ${village.contactEmail}.`,
    endpoints: [
      {
        specification: GEOREPORT_V2,
        url: `${baseUrl}/api/v2`,
        changeset: API_CHANGESET,
        type: "production",
        formats: ["text/xml", "application/json"],
      },
    ],
  };
}
