import { sqlIn } from "./0001_core.js";
import { type MigrationDb, timestampType } from "./helpers.js";

/**
 * Cookie-free visitor statistics (src/analytics). Only counts are kept; see docs/privacy-and-security.md "Visitor
 * statistics".
 * - `analytics_salts`: one random salt per day (UTC), shared by every process; deleted two days later, after which
 *   that day's visitor hashes cannot be recomputed by anyone.
 * - `analytics_visitors`: a keyed hash per visitor of the current day only, to count unique visitors across
 *   processes; the rollup job turns a finished day's rows into one count and deletes them.
 * - `analytics_counts`: (day, kind, key) -> count, where kind is page (route pattern), referrer (registrable
 *   domain), device (mobile/tablet/desktop), visitors (key ''), or endpoint (API and feed route patterns).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("analytics_salts")
    .addColumn("day", "text", (c) => c.primaryKey())
    .addColumn("salt", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("analytics_visitors")
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("visitor", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_visitors_pk", ["day", "visitor"])
    .execute();
  await db.schema
    .createTable("analytics_counts")
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) =>
      c.notNull().check(sqlIn("kind", ["page", "referrer", "device", "visitors", "endpoint"])),
    )
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_counts_pk", ["day", "kind", "key"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of ["analytics_counts", "analytics_visitors", "analytics_salts"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
