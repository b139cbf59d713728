import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Moderation: visibility of single updates and photos, redaction of a report's text (the original kept), flags
 * ("Report this"), moderators' decisions, strikes against accounts, and the ban list of senders.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  for (const table of ["report_updates", "report_photos"]) {
    await db.schema
      .alterTable(table)
      .addColumn("visibility", "text", (c) => c.notNull().defaultTo("public"))
      .execute();
  }
  await db.schema.alterTable("reports").addColumn("moderated_at", ts).execute();
  await db.schema.alterTable("reports").addColumn("original_title", "text").execute();
  await db.schema.alterTable("reports").addColumn("original_description", "text").execute();
  /** 1 when the sender is on the ban list: stored as usual, never published. */
  await db.schema
    .alterTable("reports")
    .addColumn("withheld", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("moderation_flags")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("note", "text")
    /** "account:<id>" or a keyed hash of the client address with a daily salt; never the address. */
    .addColumn("flagger", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("resolved_at", ts)
    .addUniqueConstraint("moderation_flags_once", ["kind", "item_id", "flagger"])
    .execute();
  await db.schema
    .createIndex("moderation_flags_open")
    .on("moderation_flags")
    .columns(["resolved_at", "kind", "item_id"])
    .execute();

  await db.schema
    .createTable("moderation_decisions")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    /** The moderator; null for automatic decisions (auto-hide, automatic suspension). */
    .addColumn("staff_account_id", "text")
    /** The author the decision is about, when the item belongs to an account. */
    .addColumn("subject_account_id", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("moderation_decisions_item")
    .on("moderation_decisions")
    .columns(["kind", "item_id"])
    .execute();
  await db.schema
    .createIndex("moderation_decisions_subject")
    .on("moderation_decisions")
    .column("subject_account_id")
    .execute();

  await db.schema
    .createTable("moderation_strikes")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("decision_id", "integer", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("overruled_at", ts)
    .addColumn("overruled_by", "text")
    .addColumn("overrule_reason", "text")
    .execute();
  await db.schema
    .createIndex("moderation_strikes_account")
    .on("moderation_strikes")
    .columns(["account_id", "created_at"])
    .execute();

  await db.schema
    .createTable("banned_senders")
    .addColumn("id", "integer", idColumn(db))
    /** A lower-case address ("a@b.example") or a whole domain ("b.example"). */
    .addColumn("pattern", "text", (c) => c.notNull().unique())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_by", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of ["banned_senders", "moderation_strikes", "moderation_decisions", "moderation_flags"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  for (const c of ["withheld", "original_description", "original_title", "moderated_at"]) {
    await db.schema.alterTable("reports").dropColumn(c).execute();
  }
  for (const table of ["report_updates", "report_photos"]) {
    await db.schema.alterTable(table).dropColumn("visibility").execute();
  }
}
