import type { MigrationDb } from "./helpers.js";

/**
 * A resident's update may carry one photo (issue 36), through the report form's photo pipeline: `report_photos`
 * rows of an update name it (`update_id`, null for the report's own photos), and an update waiting for its emailed
 * link keeps its cleaned photo's hash and size until it is published (the files are a kept photo meanwhile:
 * src/reports/kept-photos.ts deletes them once neither a report nor a waiting update uses them).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable("report_photos")
    .addColumn("update_id", "integer", (c) => c.references("report_updates.id").onDelete("cascade"))
    .execute();
  await db.schema.createIndex("report_photos_update").on("report_photos").column("update_id").execute();
  for (const column of ["photo_hash", "photo_width", "photo_height"] as const) {
    await db.schema
      .alterTable("report_update_requests")
      .addColumn(column, column === "photo_hash" ? "text" : "integer")
      .execute();
  }
}

export async function down(db: MigrationDb): Promise<void> {
  for (const column of ["photo_height", "photo_width", "photo_hash"] as const) {
    await db.schema.alterTable("report_update_requests").dropColumn(column).execute();
  }
  await db.schema.dropIndex("report_photos_update").execute();
  await db.schema.alterTable("report_photos").dropColumn("update_id").execute();
}
