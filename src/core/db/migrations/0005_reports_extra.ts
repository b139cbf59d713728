import type { MigrationDb } from "./helpers.js";

/** Reports: the media URL an Open311 client may supply instead of uploading a photo. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("reports").addColumn("media_url", "text").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("reports").dropColumn("media_url").execute();
}
