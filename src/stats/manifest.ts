import type { Feature } from "../core/context.js";
import { STAFF_PAGES, statsAdminRoutes } from "./admin.js";
import { statsRoutes } from "./routes.js";

/** /stats and /stats.json for everyone, /admin/stats for staff. */
export const stats: Feature = {
  name: "stats",
  menu: [{ path: "/stats", label: "Report statistics", placement: "footer", order: 10 }],
  pages: [
    {
      path: "/stats",
      title: "Report statistics",
      summary:
        "How many problems are reported, by month, category and status, the share fixed and the median time to fix.",
      placement: "footer",
    },
  ],
  resources: [
    {
      path: "/stats.json",
      title: "Report statistics",
      summary:
        "The figures of /stats as JSON: public reports of the last 12 months per month, by category and status, share fixed, median days to fix, and per category and department the median days to a first response and to fixed and the fixes confirmed by reporters.",
      section: "Data",
    },
  ],
  routes: [{ plugin: statsRoutes }],
  staff: { pages: STAFF_PAGES, routes: statsAdminRoutes },
};
