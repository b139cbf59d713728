import type { Feature } from "../core/context.js";
import { discoveryRoutes } from "./discovery-routes.js";
import { siteRoutes } from "./routes.js";

/** The home page, the static pages (about, terms, privacy, accessibility), /llms.txt, /robots.txt, the site map. */
export const site: Feature = {
  name: "site",
  routes: [{ plugin: siteRoutes }, { plugin: discoveryRoutes }],
};
