import type { Feature } from "../core/context.js";
import { mediaStorage } from "../core/media/storage.js";
import { reportData } from "./data-sources.js";
import { reportFollowingData } from "./follower-data.js";
import { keptPhotoCleanupJob } from "./kept-photos.js";
import { reportKind, reportPhotoKind, reportUpdateKind } from "./moderated-kinds.js";
import { reportMapRoutes } from "./map-routes.js";
import { reportRoutes } from "./routes.js";
import { STAFF_PAGES, triageRoutes } from "./staff/routes.js";
import { reportPages } from "./sitemap.js";

/**
 * Reports: the form, the public list, map (and its data, with the GeoJSON), feeds and pages, status look-up, follows, photos, the staff inbox and
 * triage (status, category, duplicates, assignment, forwarding).
 */
export const reports: Feature = {
  name: "reports",
  routes: [{ plugin: reportRoutes }, { plugin: reportMapRoutes }],
  staff: { pages: STAFF_PAGES, routes: triageRoutes },
  personalData: [reportData, reportFollowingData],
  moderatedKinds: [reportKind, reportUpdateKind, reportPhotoKind],
  jobs: (civic) => [keptPhotoCleanupJob(civic.database.db, mediaStorage(civic.config))],
  sitemap: [reportPages],
};
