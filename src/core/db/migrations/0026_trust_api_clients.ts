import type { MigrationDb } from "./helpers.js";

/**
 * What API clients send stays theirs (issue 33):
 * - Open311's `account_id` is the submitting system's own identifier of the person, never one of our accounts: the
 *   reports that Open311 clients filed under an account id they named are no longer that account's (its "My
 *   reports", data download and strikes).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.updateTable("reports").set({ account_id: null }).where("source", "=", "open311").execute();
}

export async function down(): Promise<void> {
  // The client's identifiers are not kept anywhere: nothing to put back.
}
