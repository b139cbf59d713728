import { sql } from "kysely";
import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/** Village reference data (gazetteer, councillors, projects), the mail outbox and API keys. */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);

  await db.schema
    .createTable("places")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull().check(sqlIn("kind", ["street", "landmark"])))
    .addColumn("latitude", "double precision", (c) => c.notNull())
    .addColumn("longitude", "double precision", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("councillors")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("ward", "text", (c) => c.notNull())
    .addColumn("party", "text")
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("surgery", "text")
    .addColumn("responsibilities", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("sort_order", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("projects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sqlIn("status", ["planned", "active", "completed"])))
    .addColumn("started_on", "text", (c) => c.notNull())
    .addColumn("lead", "text", (c) => c.notNull())
    .addColumn("volunteers_wanted", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("outbox")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("text_body", "text", (c) => c.notNull())
    .addColumn("html_body", "text")
    .addColumn("message_id", "text", (c) => c.notNull().unique())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", ts, (c) => c.notNull())
    .addColumn("locked_until", ts)
    .addColumn("last_error", "text")
    .addColumn("sent_at", ts)
    .execute();
  await db.schema.createIndex("outbox_due").on("outbox").columns(["sent_at", "next_attempt_at"]).execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("revoked_at", ts)
    .addColumn("last_used_at", ts)
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of ["api_keys", "outbox", "projects", "councillors", "places"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}

/** A CHECK (column IN (...)) constraint expression with literal values. */
export function sqlIn(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}
