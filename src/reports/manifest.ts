import type { Feature } from "../core/context.js";
import { mediaStorage } from "../core/media/storage.js";
import { reportData, residentUpdateData } from "./data-sources.js";
import { reportFollowingData } from "./follower-data.js";
import { reportAlertData } from "./alert-data.js";
import { reportSeenData } from "./seen-data.js";
import { alertJobs } from "./alerts.js";
import { questionnaireData } from "./questionnaire-data.js";
import { questionnaireJobs } from "./questionnaire.js";
import { councilPollJob } from "./council-poll.js";
import { forwardingJob } from "./forward.js";
import { keptPhotoCleanupJob } from "./kept-photos.js";
import { reportKind, reportPhotoKind, reportUpdateKind } from "./moderated-kinds.js";
import { reportMapRoutes } from "./map-routes.js";
import { reportRoutes } from "./routes.js";
import { reportSearch } from "./search.js";
import { guardedScope } from "../core/staff/guard.js";
import { STAFF_PAGES, triageRoutes } from "./staff/routes.js";
import { responseTemplateRoutes } from "./staff/template-routes.js";
import { reportPages } from "./sitemap.js";
import { latestReportsBlock, placeSearchBlock, reportsOnNotFound } from "./home-blocks.js";

/**
 * Reports: the form, the public list, map (and its data, with the GeoJSON), feeds and pages, status look-up, follows,
 * alerts for new reports, photos, the staff inbox and
 * triage (status, category, duplicates, assignment, forwarding), and the response templates (admins).
 */
export const reports: Feature = {
  name: "reports",
  menu: [
    { path: "/report", label: "Report an issue", placement: "nav", order: 10 },
    { path: "/reports", label: "Reports", placement: "nav", order: 20 },
  ],
  pages: [
    {
      path: "/report",
      title: "Report an issue",
      summary: "Report a local, non-urgent problem such as a pothole, a broken streetlight or fly-tipping.",
      placement: "nav",
    },
    {
      path: "/reports",
      title: "Reports",
      summary:
        "Every public report, newest first, those near a street or landmark, or those matching words or a reference, with a map, filters and an Atom feed.",
      placement: "nav",
    },
    {
      path: "/alerts",
      title: "Email me about new reports",
      summary:
        "Get an email about new reports near a place, on a street, in a category or anywhere in the village, at once or daily (double opt-in, one-click unsubscribe); the same choices as Atom feeds: /reports.atom?near=NAME&radius=200|500|1000 or ?street=ID, with category and status.",
      placement: "none",
    },
    {
      path: "/status",
      title: "Check a report's status",
      summary: "Look up a report by its reference number.",
      placement: "none",
    },
  ],
  resources: [
    {
      path: "/api/reports.geojson",
      title: "Public reports as GeoJSON",
      summary:
        "Public reports with a position as an RFC 7946 FeatureCollection (application/geo+json), newest first, at most 1,000 an answer (Link rel=next for more); filter with bbox=west,south,east,north, category, status and hide_closed=true.",
      section: "APIs",
    },
    {
      path: "/reports.atom",
      title: "New reports feed",
      summary:
        "Atom feed of new public reports; /reports/{category}.atom for one category (ETag and Last-Modified for conditional polls, any origin).",
      section: "Data",
    },
  ],
  feeds: [{ path: "/reports.atom", title: "New reports", type: "application/atom+xml" }],
  home: [placeSearchBlock, latestReportsBlock],
  notFound: [reportsOnNotFound],
  routes: [{ plugin: reportRoutes }, { plugin: reportMapRoutes }],
  staff: {
    pages: STAFF_PAGES,
    routes: async (scope) => {
      triageRoutes(scope);
      await guardedScope(scope, "admin", responseTemplateRoutes);
    },
  },
  personalData: [
    questionnaireData,
    reportData,
    residentUpdateData,
    reportFollowingData,
    reportAlertData,
    reportSeenData,
  ],
  moderatedKinds: [reportKind, reportUpdateKind, reportPhotoKind],
  jobs: (civic) => [
    keptPhotoCleanupJob(civic.database.db, mediaStorage(civic.config)),
    ...alertJobs(civic),
    ...questionnaireJobs(civic),
    forwardingJob(civic),
    councilPollJob(civic),
  ],
  sitemap: [reportPages],
  search: [reportSearch],
};
