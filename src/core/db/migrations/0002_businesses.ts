import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/** The business directory and its change log (the diff feed reads it; deletions stay as tombstones). */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("businesses")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("schema_type", "text", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("street_address", "text")
    .addColumn("locality", "text")
    .addColumn("region", "text")
    .addColumn("postal_code", "text")
    .addColumn("country", "text")
    .addColumn("latitude", "double precision")
    .addColumn("longitude", "double precision")
    .addColumn("telephone", "text")
    .addColumn("email", "text")
    .addColumn("url", "text")
    .addColumn("opening_hours", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("same_as", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("image", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .addColumn("deleted_at", ts)
    .execute();

  await db.schema
    .createTable("business_changes")
    .addColumn("seq", "integer", idColumn(db))
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("changed_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("business_changes_changed_at").on("business_changes").column("changed_at").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("business_changes").ifExists().execute();
  await db.schema.dropTable("businesses").ifExists().execute();
}
