import type { Feature } from "../core/context.js";
import { APP_API_PREFIX, appApiRoutes, draftRoutes } from "./routes.js";

/** The installed app's offline drafts: /report/drafts and POST /api/app/reports. */
export const drafts: Feature = {
  name: "drafts",
  routes: [{ plugin: draftRoutes }, { plugin: appApiRoutes, prefix: APP_API_PREFIX }],
};
