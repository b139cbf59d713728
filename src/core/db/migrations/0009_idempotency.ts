import { timestampType, type MigrationDb } from "./helpers.js";

/**
 * Idempotency keys (IETF draft-ietf-httpapi-idempotency-key-header) of report submissions: one row per
 * (scope, key) while the first request runs and, once it has created something, with the response to replay.
 * Rows are kept until `expires_at` (at least 24 hours), so a retry is recognised across restarts and processes.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("status", "integer")
    .addColumn("headers", "text")
    .addColumn("body", "text")
    .addColumn("created_at", timestampType(db), (c) => c.notNull())
    .addColumn("locked_until", timestampType(db))
    .addColumn("expires_at", timestampType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["scope", "key"])
    .execute();
  await db.schema.createIndex("idempotency_keys_expires").on("idempotency_keys").column("expires_at").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("idempotency_keys").ifExists().execute();
}
