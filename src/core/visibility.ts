import { type RawBuilder, sql } from "kysely";
import type { DB, ReportVisibility } from "./db/schema.js";

/**
 * The one visibility rule every public read uses (pages, lists, the map, counts, figures, feeds, the sitemap,
 * /api/v2, photos, exports; reports, their updates and photos, and ideas): a row is public only while its
 * `visibility` column is "public". Hiding, removing, auto-hiding after flags and the ban list all work by changing
 * that column (the moderation feature decides; core/moderation.ts names the states), so a public query that adds
 * these conditions cannot show moderated content. It lives in the floor because many features read public rows and
 * it knows none of them: only the column. Use the conditions as `.where(publicReport)` / `.where(publicIn("ideas"))`,
 * and `isPublic()` for a row already loaded; test/trust/rules-in-one-home.test.ts fails if a file elsewhere writes
 * its own public-visibility condition. (src/moderation/index.ts re-exports these for code that reaches them there.)
 */
export const PUBLIC: ReportVisibility = "public";

/** The tables with a `visibility` column. */
export type TableWithVisibility = {
  [T in keyof DB]: DB[T] extends { visibility: unknown } ? T : never;
}[keyof DB];

/** `<table>.visibility = 'public'`, for a query with `table` in scope (a literal, so partial indexes apply). */
export function publicIn(table: TableWithVisibility): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(`${table}.visibility`)} = ${sql.lit(PUBLIC)}`;
}

/** `reports.visibility = 'public'`, for any query with `reports` in scope. */
export const publicReport = publicIn("reports");

/**
 * `report_updates.visibility = 'public'`, and not an internal record (moderation, "seen too": 0033), which the
 * public history never shows whatever its visibility.
 */
export const publicUpdate = sql<boolean>`(${publicIn("report_updates")} and ${sql.ref("report_updates.internal")} = 0)`;

/** `report_photos.visibility = 'public'`. */
export const publicPhoto = publicIn("report_photos");

/** The bare condition for raw SQL that names the table itself (query-planner hints). */
export const publicVisibilitySql = sql`visibility = ${sql.lit(PUBLIC)}`;

/** Whether a row already loaded (its `visibility`, or a moderated item's state) is shown to the public. */
export function isPublic(visibility: string | null | undefined): boolean {
  return visibility === PUBLIC;
}
