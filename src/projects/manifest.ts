import type { Feature } from "../core/context.js";
import { projectAdminRoutes, STAFF_PAGES } from "./admin.js";
import { projectRoutes } from "./routes.js";
import { projectPages } from "./sitemap.js";

/** Community projects and their updates. */
export const projects: Feature = {
  name: "projects",
  menu: [{ path: "/projects", label: "Projects", placement: "nav", order: 40 }],
  pages: [
    {
      path: "/projects",
      title: "Projects",
      summary: "Community projects: what is planned, under way and done.",
      placement: "nav",
    },
  ],
  routes: [{ plugin: projectRoutes }],
  staff: { pages: STAFF_PAGES, routes: projectAdminRoutes },
  sitemap: [projectPages],
};
