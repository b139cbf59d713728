import { type MigrationDb, timestampType } from "./helpers.js";

/**
 * Personal data found by every address a person has used (issue 27, #8):
 * - `account_addresses`: the other addresses an account has proved it holds (a former address after an email
 *   change, an address whose my-data link was opened while signed in), so the data download and the erasure find
 *   what is held under them. Goes with the account (ON DELETE CASCADE).
 * - `outbox.about_hash`: a hash of the address of the person a message is about when it goes to someone else (a
 *   message to a councillor, a report forwarded to the council), so an erasure finds and deletes it whole even when
 *   it does not contain the address.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("account_addresses")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addPrimaryKeyConstraint("account_addresses_pk", ["account_id", "email"])
    .execute();
  await db.schema.createIndex("account_addresses_email").on("account_addresses").column("email").execute();
  await db.schema.alterTable("outbox").addColumn("about_hash", "text").execute();
  await db.schema.createIndex("outbox_about").on("outbox").column("about_hash").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("outbox_about").execute();
  await db.schema.alterTable("outbox").dropColumn("about_hash").execute();
  await db.schema.dropTable("account_addresses").execute();
}
