import type { Feature } from "../core/context.js";
import { businessCommands } from "./cli.js";
import { businessRoutes } from "./routes.js";
import { businessSearch } from "./search.js";
import { businessPages } from "./sitemap.js";

/** The business directory: pages, the schema.org JSON-LD API under /api/v1 and the dataset export. */
export const businesses: Feature = {
  name: "businesses",
  menu: [{ path: "/businesses", label: "Businesses", placement: "nav", order: 70 }],
  routes: [{ plugin: businessRoutes }],
  commands: businessCommands,
  sitemap: [businessPages],
  search: [businessSearch],
};
