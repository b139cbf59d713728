import { type MigrationDb, timestampType } from "./helpers.js";

/**
 * Following reports: a reporter can stop the update mails of their report (the one-click unsubscribe link in every
 * update mail); followers stop theirs by having their row deleted.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("reports").addColumn("updates_stopped_at", timestampType(db)).execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("reports").dropColumn("updates_stopped_at").execute();
}
