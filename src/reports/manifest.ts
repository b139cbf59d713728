import type { Feature } from "../core/context.js";
import { mediaStorage } from "../core/media/storage.js";
import { reportData } from "./data-sources.js";
import { reportFollowingData } from "./follower-data.js";
import { reportAlertData } from "./alert-data.js";
import { alertJobs } from "./alerts.js";
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
  routes: [{ plugin: reportRoutes }, { plugin: reportMapRoutes }],
  staff: {
    pages: STAFF_PAGES,
    routes: async (scope) => {
      triageRoutes(scope);
      await guardedScope(scope, "admin", responseTemplateRoutes);
    },
  },
  personalData: [reportData, reportFollowingData, reportAlertData],
  moderatedKinds: [reportKind, reportUpdateKind, reportPhotoKind],
  jobs: (civic) => [
    keptPhotoCleanupJob(civic.database.db, mediaStorage(civic.config)),
    ...alertJobs(civic),
    forwardingJob(civic),
  ],
  sitemap: [reportPages],
  search: [reportSearch],
};
