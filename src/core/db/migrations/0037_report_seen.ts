import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * "I have seen this too" (issue 36), written only by the reports feature (src/reports/seen.ts): one row per person
 * who said so on a report, for its count and for "once per person". `seer` names the person without a public trace:
 * `account:<id>` when signed in, `email:<keyed hash>` for an address confirmed by an emailed link, `client:<keyed
 * hash>` for an anonymous visitor (a keyed hash of the client address, the report and the day: never the address).
 * The account and the address are kept for the person's data download and erasure, never shown. Each mark is also
 * an internal event of the report (`report_updates`, event "seen", src/reports/events.ts).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("report_seen")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("seer", "text", (c) => c.notNull())
    .addColumn("account_id", "text")
    .addColumn("email", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("report_seen_once").on("report_seen").columns(["report_id", "seer"]).unique().execute();
  await db.schema.createIndex("report_seen_account").on("report_seen").column("account_id").execute();
  await db.schema.createIndex("report_seen_email").on("report_seen").column("email").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("report_seen").execute();
}
