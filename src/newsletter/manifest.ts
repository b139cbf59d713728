import type { Feature } from "../core/context.js";
import { newsletterSendJob } from "./job.js";
import { newsletterData } from "./personal-data.js";
import { newsletterRoutes } from "./routes.js";
import { STAFF_PAGES, staffNewsletterRoutes } from "./staff-routes.js";
import { archivePages } from "./sitemap.js";

/** The newsletter: double opt-in subscriptions, issues written by staff and sent by a job, one-click unsubscribe. */
export const newsletter: Feature = {
  name: "newsletter",
  menu: [{ path: "/newsletter", label: "Newsletter", placement: "nav", order: 60 }],
  routes: [{ plugin: newsletterRoutes }],
  staff: { pages: STAFF_PAGES, routes: staffNewsletterRoutes },
  personalData: [newsletterData],
  jobs: (civic) => [newsletterSendJob(civic)],
  sitemap: [archivePages],
};
