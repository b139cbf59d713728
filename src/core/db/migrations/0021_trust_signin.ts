import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Undo links for email changes: when an account's address changes, the old address gets a single-use,
 * time-limited link that puts the old address back and ends every session. Only a hash of the link's token is
 * kept; the row holds the old address, so it goes with the account (cascade) and with an erasure of that address.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("email_change_undos")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("old_email", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .addColumn("used_at", ts)
    .execute();
  await db.schema.createIndex("email_change_undos_account").on("email_change_undos").column("account_id").execute();
  await db.schema.createIndex("email_change_undos_email").on("email_change_undos").column("old_email").execute();
  await db.schema.createIndex("email_change_undos_expiry").on("email_change_undos").column("expires_at").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("email_change_undos").ifExists().execute();
}
