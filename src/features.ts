import { accounts } from "./accounts/manifest.js";
import { admin } from "./admin/manifest.js";
import { analytics } from "./analytics/manifest.js";
import { businesses } from "./businesses/manifest.js";
import { catalogue } from "./catalogue/manifest.js";
import type { Feature } from "./core/context.js";
import { councillors } from "./councillors/manifest.js";
import { developers } from "./developers/manifest.js";
import { drafts } from "./drafts/manifest.js";
import { health } from "./health/manifest.js";
import { ideas } from "./ideas/manifest.js";
import { maps } from "./maps/manifest.js";
import { moderation } from "./moderation/manifest.js";
import { newsletter } from "./newsletter/manifest.js";
import { open311 } from "./open311/manifest.js";
import { openapi } from "./openapi/manifest.js";
import { projects } from "./projects/manifest.js";
import { reports } from "./reports/manifest.js";
import { site } from "./site/manifest.js";
import { stats } from "./stats/manifest.js";
import { volunteers } from "./volunteers/manifest.js";

/**
 * Every feature of the platform, in the one order that src/app.ts and src/cli.ts follow (docs/architecture.md
 * "Features"):
 *
 * - plugins (the session, the visitor counting) and routes are registered in this order;
 * - personal data is collected, listed and exported in this order (the download's data.json keys) and erased in
 *   the REVERSE order, in one transaction: what refers to a person's reports and account goes first, their reports
 *   next, and the account itself (`accounts`, first here) last, so each source still finds what it erases by the
 *   account;
 * - staff pages are listed by their `order`, ties in this order; moderated kinds and jobs in this order.
 *
 * A new feature is a folder with an `index.ts` (what other features may use of it) and a `manifest.ts` (what it
 * contributes), added here.
 */
export const FEATURES: readonly Feature[] = [
  accounts,
  analytics,
  health,
  site,
  councillors,
  projects,
  reports,
  drafts,
  maps,
  businesses,
  open311,
  developers,
  openapi,
  newsletter,
  ideas,
  volunteers,
  admin,
  stats,
  moderation,
  catalogue,
];
