import type { MigrationDb } from "./helpers.js";

/**
 * The map tiles the proxy keeps (src/maps, issue 35): one row per tile, naming the stored bytes in the media store
 * (`tiles/{sha256}.png`, so every instance sharing the store serves the same copy) and when they were fetched from
 * the upstream, after which (a week) they are fetched again.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable("map_tiles")
    .addColumn("z", "integer", (c) => c.notNull())
    .addColumn("x", "integer", (c) => c.notNull())
    .addColumn("y", "integer", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("bytes", "integer", (c) => c.notNull())
    // Epoch milliseconds.
    .addColumn("fetched_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("map_tiles_pk", ["z", "x", "y"])
    .execute();
  await db.schema.createIndex("map_tiles_hash").on("map_tiles").column("hash").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("map_tiles").ifExists().execute();
}
