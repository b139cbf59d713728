import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Scheduled jobs and what they look after:
 * - `job_leases`: one row per periodic job; a process runs a job only after claiming its row (a compare-and-set
 *   on `leased_until`), so several processes sharing one database run each job once per interval;
 * - `kept_photos`: photos stored for a report form that came back with problems, so an abandoned form's photos
 *   can be deleted after a day;
 * - an index on `report_photos.hash`, which the photo route and that clean-up look photos up by.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("job_leases")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("next_run_at", ts, (c) => c.notNull())
    .addColumn("lease_owner", "text")
    .addColumn("leased_until", ts)
    .addColumn("last_started_at", ts)
    .addColumn("last_finished_at", ts)
    .addColumn("last_error", "text")
    .execute();
  await db.schema
    .createTable("kept_photos")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("kept_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("kept_photos_kept_at").on("kept_photos").columns(["kept_at"]).execute();
  await db.schema.createIndex("kept_photos_hash").on("kept_photos").columns(["hash"]).execute();
  await db.schema.createIndex("report_photos_hash").on("report_photos").columns(["hash"]).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("report_photos_hash").ifExists().execute();
  await db.schema.dropTable("kept_photos").ifExists().execute();
  await db.schema.dropTable("job_leases").ifExists().execute();
}
