import { timestampType, type MigrationDb } from "./helpers.js";

/**
 * Shared secrets (the session and form-token secret when SESSION_SECRET is unset): generated once by whichever
 * instance starts first and read by every other one, so instances sharing a database sign and check the same way.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable("shared_secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", timestampType(db), (c) => c.notNull())
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("shared_secrets").ifExists().execute();
}
