import { sqlIn } from "./0001_core.js";
import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

const STATUSES = [
  "open",
  "investigating",
  "in_progress",
  "action_scheduled",
  "fixed",
  "closed",
  "duplicate",
  "not_responsible",
] as const;

/** Report categories (Open311 services), reports, their photos and their public status history. */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("categories")
    .addColumn("code", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("group_name", "text")
    .addColumn("keywords", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("department_name", "text")
    .addColumn("department_email", "text")
    .addColumn("attributes", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("is_public", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("sort_order", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("reports")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("reference", "text", (c) => c.notNull().unique())
    .addColumn("category_code", "text", (c) => c.notNull().references("categories.code"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("latitude", "double precision")
    .addColumn("longitude", "double precision")
    .addColumn("location_text", "text")
    .addColumn("place_id", "text", (c) => c.references("places.id"))
    .addColumn("address_id", "text")
    .addColumn("attributes", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open").check(sqlIn("status", STATUSES)))
    .addColumn("visibility", "text", (c) =>
      c
        .notNull()
        .defaultTo("public")
        .check(sqlIn("visibility", ["public", "hidden", "removed"])),
    )
    .addColumn("reporter_email", "text")
    .addColumn("reporter_name", "text")
    .addColumn("reporter_phone", "text")
    .addColumn("share_contact", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("device_id", "text")
    .addColumn("account_id", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("api_key_id", "integer", (c) => c.references("api_keys.id"))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .addColumn("forwarded_at", ts)
    .addColumn("forwarded_to", "text")
    .addColumn("expected_at", ts)
    .execute();
  // The public list and the Open311 default window: newest public reports first.
  await db.schema.createIndex("reports_public_created").on("reports").columns(["visibility", "created_at"]).execute();
  // Open311 service_code + status filters within a date window.
  await db.schema
    .createIndex("reports_category_created")
    .on("reports")
    .columns(["category_code", "visibility", "created_at"])
    .execute();
  await db.schema.createIndex("reports_status_created").on("reports").columns(["status", "created_at"]).execute();
  // "Near here" bounding-box prefilter.
  await db.schema.createIndex("reports_location").on("reports").columns(["latitude", "longitude"]).execute();

  await db.schema
    .createTable("report_photos")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("report_photos_report").on("report_photos").columns(["report_id", "position"]).execute();

  await db.schema
    .createTable("report_updates")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull().check(sqlIn("status", STATUSES)))
    .addColumn("previous_status", "text")
    .addColumn("note", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("report_updates_report")
    .on("report_updates")
    .columns(["report_id", "created_at"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of ["report_updates", "report_photos", "reports", "categories"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
