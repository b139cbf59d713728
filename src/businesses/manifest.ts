import type { Feature } from "../core/context.js";
import { businessCommands } from "./cli.js";
import { businessRoutes } from "./routes.js";
import { businessSearch } from "./search.js";
import { businessPages } from "./sitemap.js";

/** The business directory: pages, the schema.org JSON-LD API under /api/v1 and the dataset export. */
export const businesses: Feature = {
  name: "businesses",
  menu: [{ path: "/businesses", label: "Businesses", placement: "nav", order: 70 }],
  pages: [
    {
      path: "/businesses",
      title: "Local businesses",
      summary: "Directory of local businesses with opening hours and contact details.",
      placement: "nav",
    },
  ],
  resources: [
    {
      path: "/api/v1/businesses",
      title: "Business directory API",
      summary:
        "All local businesses as a schema.org ItemList in JSON-LD; filter with category, schemaType and q (full-text search, plurals and accents folded).",
      section: "APIs",
    },
    {
      path: "/api/v1/diff?since=2026-01-01",
      title: "Business directory diff feed",
      summary: "What was added, updated and removed since a date (YYYY-MM-DD), to keep a copy in sync.",
      section: "APIs",
    },
    {
      path: "/api/v1/vocabulary",
      title: "Business directory vocabulary",
      summary:
        "The directory's own JSON-LD terms (category, dateCreated, dateModified), which schema.org does not define for LocalBusiness.",
      section: "Data",
    },
    {
      path: "/data/businesses-canonical.json",
      title: "Business dataset export",
      summary: "The full canonical business dataset as one static JSON file (ODbL 1.0), with ETag for caching.",
      section: "Data",
    },
  ],
  routes: [{ plugin: businessRoutes }],
  commands: businessCommands,
  sitemap: [businessPages],
  search: [businessSearch],
};
