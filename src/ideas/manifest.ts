import type { Feature } from "../core/context.js";
import { ideaData, ideaKind } from "./registrations.js";
import { ideaRoutes } from "./routes.js";
import { ideaStaffRoutes, STAFF_PAGES } from "./staff.js";
import { ideaPages } from "./sitemap.js";

/** Residents' ideas: proposals, support, staff responses. */
export const ideas: Feature = {
  name: "ideas",
  menu: [{ path: "/ideas", label: "Ideas", placement: "nav", order: 30 }],
  pages: [
    {
      path: "/ideas",
      title: "Ideas",
      summary: "Residents' ideas to improve the village: share one, support others, follow their status.",
      placement: "nav",
    },
    {
      path: "/ideas/new",
      title: "Share an idea",
      summary: "Propose an idea: title, description, optional category, place and photo.",
      placement: "none",
    },
  ],
  resources: [
    {
      path: "/ideas.atom",
      title: "Ideas feed",
      summary:
        "Atom feed of residents' published ideas, with their status and number of supporters (ETag and Last-Modified for conditional polls, any origin).",
      section: "Data",
    },
  ],
  routes: [{ plugin: ideaRoutes }],
  staff: { pages: STAFF_PAGES, routes: ideaStaffRoutes },
  personalData: [ideaData],
  moderatedKinds: [ideaKind],
  sitemap: [ideaPages],
};
