import type { MigrationDb } from "./helpers.js";

/**
 * What API clients send stays theirs (issue 33):
 * - Open311's `account_id` is the submitting system's own identifier of the person, never one of our accounts: the
 *   reports that Open311 clients filed under an account id they named are no longer that account's (its "My
 *   reports", data download and strikes).
 * - Idempotency keys belong to the client that sent them (`scope` is now `<paths>:<client>`, e.g.
 *   `open311:key:<api key id>`), and a stored answer names what it created (`resource`, e.g. `report:<reference>`)
 *   so that it is erased with it. The keys of the shared scopes of before ("report", "open311") can no longer be
 *   matched by anyone and name nothing: they go now rather than in 30 days.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.updateTable("reports").set({ account_id: null }).where("source", "=", "open311").execute();
  await db.schema.alterTable("idempotency_keys").addColumn("resource", "text").execute();
  await db.schema.createIndex("idempotency_keys_resource").on("idempotency_keys").column("resource").execute();
  await db.deleteFrom("idempotency_keys").where("scope", "in", ["report", "open311"]).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("idempotency_keys_resource").execute();
  await db.schema.alterTable("idempotency_keys").dropColumn("resource").execute();
}
