import type { Feature } from "../core/context.js";
import { ideaData, ideaKind } from "./registrations.js";
import { ideaRoutes } from "./routes.js";
import { ideaStaffRoutes, STAFF_PAGES } from "./staff.js";
import { ideaPages } from "./sitemap.js";

/** Residents' ideas: proposals, support, staff responses. */
export const ideas: Feature = {
  name: "ideas",
  menu: [{ path: "/ideas", label: "Ideas", placement: "nav", order: 30 }],
  routes: [{ plugin: ideaRoutes }],
  staff: { pages: STAFF_PAGES, routes: ideaStaffRoutes },
  personalData: [ideaData],
  moderatedKinds: [ideaKind],
  sitemap: [ideaPages],
};
