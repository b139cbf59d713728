import { type MigrationDb } from "./helpers.js";

/**
 * One path for report events (issue 36, src/reports/events.ts): every change to a public report is one row of
 * `report_updates`, written with its report's columns, its audit row and its mails in one transaction.
 *
 * - `report_updates.author_kind`: who made it, "staff" | "council" | "resident" | "reporter" | "system" (rows
 *   before this migration were written by staff, but the first "open" row of each report: its reporter's).
 * - `report_updates.event`: what happened ("report", "status", "update", "seen", "questionnaire", "moderation").
 * - `report_updates.action`: for a moderation event, what the moderator did ("hide", "redact", "hide-photo", …).
 * - `report_updates.author_account_id`, `author_email`: private; who wrote a resident's or reporter's update (never
 *   shown, for strikes, mail to its author and erasure).
 * - `report_updates.internal`: 1 for a record that is never in the public history (moderation, "seen too"); the
 *   public reads leave it out with the rows moderation hid (core/visibility.ts, publicUpdate).
 * - `report_updates.event_key`: unique when given, so the same event sent twice (a replayed post, two instances)
 *   is recorded once.
 * - `outbox.dedupe_key`: unique when given, so a message (one per event and recipient) is queued once.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable("report_updates")
    .addColumn("author_kind", "text", (c) => c.notNull().defaultTo("staff"))
    .execute();
  await db.schema
    .alterTable("report_updates")
    .addColumn("event", "text", (c) => c.notNull().defaultTo("status"))
    .execute();
  await db.schema.alterTable("report_updates").addColumn("action", "text").execute();
  await db.schema.alterTable("report_updates").addColumn("author_account_id", "text").execute();
  await db.schema.alterTable("report_updates").addColumn("author_email", "text").execute();
  await db.schema
    .alterTable("report_updates")
    .addColumn("internal", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("report_updates").addColumn("event_key", "text").execute();
  // The first row of every report is the record of its making by the reporter.
  await db
    .updateTable("report_updates")
    .set({ author_kind: "reporter", event: "report" })
    .where("previous_status", "is", null)
    .execute();
  await db.schema.createIndex("report_updates_event_key").on("report_updates").column("event_key").unique().execute();
  await db.schema
    .createIndex("report_updates_author_account")
    .on("report_updates")
    .column("author_account_id")
    .execute();
  await db.schema.alterTable("outbox").addColumn("dedupe_key", "text").execute();
  await db.schema.createIndex("outbox_dedupe_key").on("outbox").column("dedupe_key").unique().execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("outbox_dedupe_key").ifExists().execute();
  await db.schema.alterTable("outbox").dropColumn("dedupe_key").execute();
  await db.schema.dropIndex("report_updates_author_account").ifExists().execute();
  await db.schema.dropIndex("report_updates_event_key").ifExists().execute();
  for (const c of ["event_key", "internal", "author_email", "author_account_id", "action", "event", "author_kind"]) {
    await db.schema.alterTable("report_updates").dropColumn(c).execute();
  }
}
