import { sql } from "kysely";
import type { ReportVisibility } from "../core/db/schema.js";

/**
 * The one visibility rule every public output uses (pages, lists, the map, counts, feeds, the sitemap, /api/v2,
 * photos and exports): a report, an update or a photo is public only while its `visibility` is "public". Hiding,
 * removing, auto-hiding after flags and the ban list all work by changing that column, so a public query that adds
 * these conditions cannot show moderated content. Use them as `.where(publicReport)`.
 */
export const PUBLIC: ReportVisibility = "public";

/** `reports.visibility = 'public'`, for any query with `reports` in scope. */
export const publicReport = sql<boolean>`${sql.ref("reports.visibility")} = ${sql.lit(PUBLIC)}`;

/** `report_updates.visibility = 'public'`. */
export const publicUpdate = sql<boolean>`${sql.ref("report_updates.visibility")} = ${sql.lit(PUBLIC)}`;

/** `report_photos.visibility = 'public'`. */
export const publicPhoto = sql<boolean>`${sql.ref("report_photos.visibility")} = ${sql.lit(PUBLIC)}`;

/** The bare condition for raw SQL that names the table itself (query-planner hints). */
export const publicVisibilitySql = sql`visibility = ${sql.lit(PUBLIC)}`;

let generation = 0;
/**
 * Moves on with every moderation decision in this process, so caches of public output kept in memory (the sitemap)
 * drop a hidden item at once here; other processes see the new data version at their next check.
 */
export function moderationGeneration(): number {
  return generation;
}
export function noteModerationChange(): void {
  generation++;
}
