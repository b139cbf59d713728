import type { Feature } from "../core/context.js";
import { STAFF_PAGES, statsAdminRoutes } from "./admin.js";
import { statsRoutes } from "./routes.js";

/** /stats and /stats.json for everyone, /admin/stats for staff. */
export const stats: Feature = {
  name: "stats",
  menu: [{ path: "/stats", label: "Report statistics", placement: "footer", order: 10 }],
  routes: [{ plugin: statsRoutes }],
  staff: { pages: STAFF_PAGES, routes: statsAdminRoutes },
};
