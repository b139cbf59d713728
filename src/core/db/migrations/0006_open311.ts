import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * Open311 "near here" queries: an index on a coarse grid cell of each report's position (1/500 degree, about
 * 220 m × 140 m here), with the creation time after it, so a radius query seeks the few cells around the point and
 * only their reports inside the date window. The cell is an expression (no column to keep up to date); queries
 * must use exactly `geoCellSql` from src/open311/geo.ts, which writes the same expression.
 */
export async function up(db: MigrationDb): Promise<void> {
  const cell = isPostgres(db)
    ? sql`(floor((latitude + 90) * 500)::bigint * 1000000 + floor((longitude + 180) * 500)::bigint)`
    : sql`(CAST((latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((longitude + 180) * 500 AS INTEGER))`;
  await sql`create index reports_public_cell_created on reports (visibility, ${cell}, created_at)`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("reports_public_cell_created").ifExists().execute();
}
