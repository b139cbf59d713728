import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Updates from residents (issue 36), written only by the reports feature (src/reports/resident-updates.ts): an
 * update sent with an email address instead of an account waits here, unpublished, until the emailed link's page
 * confirms it (core/links.ts, purpose "report-update"); it then goes through the one path (src/reports/events.ts)
 * as a `report_updates` row and this row is deleted. One never confirmed is deleted by the retention job
 * (`unconfirmedDays`), with its link.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("report_update_requests")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    /** The lower-case address the confirmation link was sent to (private). */
    .addColumn("email", "text", (c) => c.notNull())
    /** The update's text, as it will be published. */
    .addColumn("note", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("report_update_requests_created")
    .on("report_update_requests")
    .column("created_at")
    .execute();
  await db.schema.createIndex("report_update_requests_email").on("report_update_requests").column("email").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("report_update_requests").execute();
}
