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
  pages: [
    {
      path: "/newsletter",
      title: "Newsletter",
      summary: "Get village news by email (double opt-in, one-click unsubscribe).",
      placement: "nav",
    },
    {
      path: "/newsletter/archive",
      title: "Newsletter archive",
      summary: "Every newsletter sent, newest first, with an Atom feed.",
      placement: "none",
    },
  ],
  resources: [
    {
      path: "/newsletter/archive.atom",
      title: "Newsletter feed",
      summary: "Atom feed of the newsletters sent (ETag and Last-Modified for conditional polls, any origin).",
      section: "Data",
    },
  ],
  routes: [{ plugin: newsletterRoutes }],
  staff: { pages: STAFF_PAGES, routes: staffNewsletterRoutes },
  personalData: [newsletterData],
  jobs: (civic) => [newsletterSendJob(civic)],
  sitemap: [archivePages],
};
