import type { Feature } from "../core/context.js";
import { moderationAdminRoutes, STAFF_PAGES } from "./admin-routes.js";
import { flagRoutes } from "./flag-routes.js";
import { moderationData } from "./personal-data.js";
import { moderationDecisions } from "./sitemap.js";

/** "Report this" flags, the moderation queue, decisions, strikes, suspensions and the ban list. */
export const moderation: Feature = {
  name: "moderation",
  routes: [{ plugin: flagRoutes }],
  staff: { pages: STAFF_PAGES, routes: moderationAdminRoutes },
  personalData: [moderationData],
  sitemap: [moderationDecisions],
};
