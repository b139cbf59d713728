import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Alerts for new reports (issue 35), written only by the reports feature (src/reports/alerts.ts): "Email me about
 * new reports" near a gazetteer place, on a street, in a category or anywhere in the village, immediately or as a
 * daily digest, confirmed by an emailed link (core/links.ts).
 *
 * - `report_alerts`: one row per address and choice; `token_hash` is the salt of its one-click unsubscribe token.
 * - `report_alert_scans`: a new public report was matched against the alerts (once, whichever process did it).
 * - `report_alert_sends`: an immediate alert mail was queued for this alert and report; the primary key makes a
 *   second one impossible, even from another process or a retried run.
 * - `report_alert_digests`: the daily digest of this alert for this UTC day was queued (once per day).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("report_alerts")
    .addColumn("id", "integer", idColumn(db))
    /** Lower-case. */
    .addColumn("email", "text", (c) => c.notNull())
    /** "village" | "near" | "street" | "category". */
    .addColumn("scope", "text", (c) => c.notNull())
    /** The gazetteer place (near) or street (street). */
    .addColumn("place_id", "text")
    .addColumn("radius_m", "integer")
    .addColumn("category_code", "text")
    /** "immediate" | "daily". */
    .addColumn("frequency", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("confirmed_at", ts)
    .execute();
  await db.schema.createIndex("report_alerts_email").on("report_alerts").column("email").execute();
  await db.schema
    .createIndex("report_alerts_confirmed")
    .on("report_alerts")
    .columns(["frequency", "confirmed_at"])
    .execute();

  await db.schema
    .createTable("report_alert_scans")
    .addColumn("report_id", "integer", (c) => c.primaryKey().references("reports.id").onDelete("cascade"))
    .addColumn("scanned_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("report_alert_scans_at").on("report_alert_scans").column("scanned_at").execute();

  await db.schema
    .createTable("report_alert_sends")
    .addColumn("alert_id", "integer", (c) => c.notNull().references("report_alerts.id").onDelete("cascade"))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("sent_at", ts, (c) => c.notNull())
    .addPrimaryKeyConstraint("report_alert_sends_pk", ["alert_id", "report_id"])
    .execute();
  await db.schema.createIndex("report_alert_sends_report").on("report_alert_sends").column("report_id").execute();

  await db.schema
    .createTable("report_alert_digests")
    .addColumn("alert_id", "integer", (c) => c.notNull().references("report_alerts.id").onDelete("cascade"))
    /** YYYY-MM-DD (UTC), the day whose reports the digest listed. */
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("sent_at", ts, (c) => c.notNull())
    .addPrimaryKeyConstraint("report_alert_digests_pk", ["alert_id", "day"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of ["report_alert_digests", "report_alert_sends", "report_alert_scans", "report_alerts"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
