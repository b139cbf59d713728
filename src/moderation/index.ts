/**
 * The moderation feature's public entry: what other features may use of it (the dependency rules in
 * .dependency-cruiser.cjs let them import this file and no other of the folder).
 */
export { bannedCondition, contributorBanCandidates, isBanned } from "./ban-list.js";
export { ModeratedGone, ModeratedMark, ModerationNotice, ReportThisLink } from "./flag-pages.js";
export { moderationGeneration } from "./generation.js";
/** Decisions taken elsewhere in the console (a report's staff view): the same functions and audit as the queue. */
export { MODERATOR_ACTIONS, moderate, redactReport } from "./decisions.js";
export type { Actor } from "./decisions.js";
export { authorStanding, moderationRecord, openFlagCounts } from "./item-record.js";
export { flagReasonLabel } from "./flags.js";
export type { AuthorStanding, ItemDecision, ItemFlag, ItemKey } from "./item-record.js";
/** The one visibility rule is the floor's (src/core/visibility.ts); re-exported for code that reaches it here. */
export {
  PUBLIC,
  isPublic,
  publicIn,
  publicPhoto,
  publicReport,
  publicUpdate,
  publicVisibilitySql,
} from "../core/visibility.js";
