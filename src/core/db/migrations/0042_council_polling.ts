import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Bringing councils' answers back (issue 37). A department's table from the council's Open311 `status` values to
 * ours (JSON, written by the catalogue feature; `{}` is the documented default table, reports/council-poll.ts).
 * Each forwarding remembers what the council last said (status, its update time, the hash of its notes) and its
 * last sync (when, and how it went), written by the reports feature only. `council_polls` keeps, per department and
 * query, the entity tag of the council's last answer (sent back in If-None-Match) and when it last answered.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .alterTable("departments")
    .addColumn("open311_statuses", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema.alterTable("report_forwardings").addColumn("council_status", "text").execute();
  await db.schema.alterTable("report_forwardings").addColumn("council_updated_at", "text").execute();
  await db.schema.alterTable("report_forwardings").addColumn("council_notes_hash", "text").execute();
  await db.schema.alterTable("report_forwardings").addColumn("synced_at", ts).execute();
  await db.schema.alterTable("report_forwardings").addColumn("sync_error", "text").execute();
  await db.schema
    .createTable("council_polls")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("department_id", "integer", (c) => c.notNull())
    /** A hash of the query (without the API key). */
    .addColumn("query_key", "text", (c) => c.notNull())
    .addColumn("etag", "text")
    .addColumn("polled_at", ts, (c) => c.notNull())
    .addColumn("answered_at", ts)
    .execute();
  await db.schema
    .createIndex("council_polls_query")
    .on("council_polls")
    .columns(["department_id", "query_key"])
    .unique()
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("council_polls").execute();
  for (const column of ["sync_error", "synced_at", "council_notes_hash", "council_updated_at", "council_status"]) {
    await db.schema.alterTable("report_forwardings").dropColumn(column).execute();
  }
  await db.schema.alterTable("departments").dropColumn("open311_statuses").execute();
}
