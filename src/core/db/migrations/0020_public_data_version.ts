import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * The public data's version: counters that triggers move in the same transaction as every insert, update or delete
 * of a report, a report update, a report photo or a place, whoever makes it (a submission, a staff action, a
 * moderation decision, an erasure, the command line or plain SQL). Together with the catalogue's version (0017) it
 * says "nothing the public reads of reports has changed", so a process may keep answers it has already built (the
 * Open311 requests cache) and every process sees a change at its next request.
 *
 * The counter is spread over VERSION_SLOTS rows by report id, like `report_counts`, so concurrent submissions on
 * PostgreSQL do not queue on one row lock; readers add the slots up. Each slot only grows, so the sum moves with
 * every committed change and never comes back to an earlier value.
 */
export const VERSION_SLOTS = 16;

/** Each table, and the report id whose slot its change moves. */
const TRACKED = [
  { table: "reports", id: "id" },
  { table: "report_updates", id: "report_id" },
  { table: "report_photos", id: "report_id" },
] as const;

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable("public_data_version")
    .addColumn("slot", "integer", (c) => c.primaryKey())
    .addColumn("n", "bigint", (c) => c.notNull())
    .execute();
  await db
    .insertInto("public_data_version" as never)
    .values(Array.from({ length: VERSION_SLOTS }, (_, slot) => ({ slot, n: 0 })) as never)
    .execute();

  const bump = (row: "OLD" | "NEW", column: string) =>
    sql.raw(`update public_data_version set n = n + 1 where slot = ${row}.${column} % ${VERSION_SLOTS}`);
  if (isPostgres(db)) {
    for (const { table, id } of TRACKED) {
      await sql`create function ${sql.raw(`${table}_data_version`)}() returns trigger language plpgsql as $$
        begin
          if TG_OP = 'DELETE' then ${bump("OLD", id)}; else ${bump("NEW", id)}; end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger ${sql.raw(`${table}_data_version`)} after insert or update or delete on ${sql.table(table)}
        for each row execute function ${sql.raw(`${table}_data_version`)}()`.execute(db);
    }
    // Places change rarely (the gazetteer import): once per statement, on slot 0.
    await sql`create function places_data_version() returns trigger language plpgsql as $$
      begin update public_data_version set n = n + 1 where slot = 0; return null; end $$`.execute(db);
    await sql`create trigger places_data_version after insert or update or delete on places
      for each statement execute function places_data_version()`.execute(db);
  } else {
    for (const { table, id } of TRACKED) {
      for (const event of ["insert", "update", "delete"] as const) {
        await sql`create trigger ${sql.raw(`${table}_${event}_data_version`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin ${bump(event === "delete" ? "OLD" : "NEW", id)}; end`.execute(db);
      }
    }
    for (const event of ["insert", "update", "delete"] as const) {
      await sql`create trigger ${sql.raw(`places_${event}_data_version`)} after ${sql.raw(event)} on places
        begin update public_data_version set n = n + 1 where slot = 0; end`.execute(db);
    }
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    for (const table of [...TRACKED.map((t) => t.table), "places"]) {
      await sql`drop trigger if exists ${sql.raw(`${table}_data_version`)} on ${sql.table(table)}`.execute(db);
      await sql`drop function if exists ${sql.raw(`${table}_data_version`)}()`.execute(db);
    }
  } else {
    for (const table of [...TRACKED.map((t) => t.table), "places"]) {
      for (const event of ["insert", "update", "delete"]) {
        await sql.raw(`drop trigger if exists ${table}_${event}_data_version`).execute(db);
      }
    }
  }
  await db.schema.dropTable("public_data_version").ifExists().execute();
}
