import { sql } from "kysely";
import { isPostgres, type MigrationDb, timestampType } from "./helpers.js";

/**
 * When the catalogue last changed (issue 34): the one-row counter of 0017 also keeps the time of its last bump,
 * stamped by the same triggers on every insert, update or delete of a category or department. Categories have no
 * change time of their own, and a service definition is made of its category and its department's copy, so the
 * catalogue's last change is the newest change that can touch it: its `Last-Modified`.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable("catalogue_version").addColumn("changed_at", timestampType(db)).execute();
  if (isPostgres(db)) {
    await db
      .updateTable("catalogue_version")
      .set({ changed_at: sql`now()` })
      .execute();
    await sql`create or replace function catalogue_bump() returns trigger language plpgsql as $$
      begin update catalogue_version set version = version + 1, changed_at = now() where id = 1; return null; end $$`.execute(
      db,
    );
  } else {
    await db
      .updateTable("catalogue_version")
      .set({ changed_at: sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` })
      .execute();
    for (const table of ["categories", "departments"]) {
      for (const event of ["insert", "update", "delete"]) {
        await sql`drop trigger if exists ${sql.raw(`${table}_${event}_bump`)}`.execute(db);
        await sql`create trigger ${sql.raw(`${table}_${event}_bump`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update catalogue_version set version = version + 1, changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
          where id = 1; end`.execute(db);
      }
    }
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`create or replace function catalogue_bump() returns trigger language plpgsql as $$
      begin update catalogue_version set version = version + 1 where id = 1; return null; end $$`.execute(db);
  } else {
    for (const table of ["categories", "departments"]) {
      for (const event of ["insert", "update", "delete"]) {
        await sql`drop trigger if exists ${sql.raw(`${table}_${event}_bump`)}`.execute(db);
        await sql`create trigger ${sql.raw(`${table}_${event}_bump`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update catalogue_version set version = version + 1 where id = 1; end`.execute(db);
      }
    }
  }
  await db.schema.alterTable("catalogue_version").dropColumn("changed_at").execute();
}
