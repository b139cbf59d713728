import type { Feature } from "../core/context.js";
import { discoveryRoutes } from "./discovery-routes.js";
import { SITE_PAGES } from "./pages.js";
import { siteRoutes } from "./routes.js";

/** The home page, the static pages (about, terms, privacy, accessibility), /llms.txt, /robots.txt, the site map. */
export const site: Feature = {
  name: "site",
  menu: [
    { path: "/about", label: "About this platform", placement: "footer", order: 30 },
    { path: "/terms", label: "Terms of use", placement: "footer", order: 40 },
    { path: "/privacy", label: "Privacy notice", placement: "footer", order: 50 },
    { path: "/accessibility", label: "Accessibility statement", placement: "footer", order: 60 },
  ],
  pages: SITE_PAGES,
  routes: [{ plugin: siteRoutes }, { plugin: discoveryRoutes }],
};
