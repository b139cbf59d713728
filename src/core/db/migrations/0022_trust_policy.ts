import type { MigrationDb } from "./helpers.js";

/**
 * Issue 27 #12: a flag records which client sent it, as a keyed hash of the client's address (an IPv6 /64 counts as
 * one address) salted with the item, so auto-hide can count at most one flagger per client. The hash differs from
 * item to item: it links nothing across items and never holds the address.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("moderation_flags").addColumn("client_key", "text").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("moderation_flags").dropColumn("client_key").execute();
}
