import { type MigrationDb, timestampType } from "./helpers.js";

/**
 * Safer writes: outbox messages that failed for good (`failed_at`), addresses that bounced permanently
 * (`mail_suppressions`, by a hash of the address only) and form submissions already accepted
 * (`form_submissions`, keyed by the form token's nonce, so a replayed form answers with the first result).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema.alterTable("outbox").addColumn("failed_at", ts).execute();

  await db.schema
    .createTable("mail_suppressions")
    .addColumn("address_hash", "text", (c) => c.primaryKey())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("form_submissions")
    .addColumn("nonce", "text", (c) => c.primaryKey())
    .addColumn("form", "text", (c) => c.notNull())
    .addColumn("result", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("form_submissions_expires").on("form_submissions").column("expires_at").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("form_submissions").ifExists().execute();
  await db.schema.dropTable("mail_suppressions").ifExists().execute();
  await db.schema.alterTable("outbox").dropColumn("failed_at").execute();
}
