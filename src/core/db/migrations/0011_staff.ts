import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * The staff console: the append-only audit log of staff actions, private staff notes on reports, people following
 * a report by email, and on reports the assigned staff member and the report it duplicates; categories can be
 * retired (existing reports keep them).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("audit_log")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("at", ts, (c) => c.notNull())
    /** The staff account that acted; null for the system (automatic actions). No foreign key: the log outlives it. */
    .addColumn("actor_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("item_type", "text", (c) => c.notNull())
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    /** JSON object with what changed. */
    .addColumn("details", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema.createIndex("audit_log_at").on("audit_log").column("at").execute();
  await db.schema.createIndex("audit_log_item").on("audit_log").columns(["item_type", "item_id"]).execute();
  await db.schema.createIndex("audit_log_actor").on("audit_log").column("actor_id").execute();

  await db.schema
    .createTable("staff_notes")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("author_id", "text")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("staff_notes_report").on("staff_notes").column("report_id").execute();

  await db.schema
    .createTable("report_followers")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    /** Lower-case. */
    .addColumn("email", "text", (c) => c.notNull())
    /** Hash of the token in the confirmation and unsubscribe links. */
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("confirmed_at", ts)
    .addUniqueConstraint("report_followers_report_email", ["report_id", "email"])
    .execute();
  await db.schema.createIndex("report_followers_email").on("report_followers").column("email").execute();

  await db.schema.alterTable("reports").addColumn("assigned_to", "text").execute();
  await db.schema.alterTable("reports").addColumn("duplicate_of", "integer").execute();
  await db.schema.alterTable("categories").addColumn("retired_at", ts).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("categories").dropColumn("retired_at").execute();
  await db.schema.alterTable("reports").dropColumn("duplicate_of").execute();
  await db.schema.alterTable("reports").dropColumn("assigned_to").execute();
  for (const t of ["report_followers", "staff_notes", "audit_log"]) await db.schema.dropTable(t).ifExists().execute();
}
