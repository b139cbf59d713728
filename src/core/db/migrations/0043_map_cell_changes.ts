import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * Which `report_map_cells` rows changed since a reader last looked (issue 35: the reports map at a million reports).
 * Every process keeps a copy of the public rows (src/reports/map-cells.ts) and, after a change to the public data,
 * reads only the rows whose `changed` stamp is at or past what it had seen, instead of all of them (~60,000 rows, 12
 * to 20 ms, at a million reports).
 *
 * The stamp is set on every insert and update of a row, whatever code changes the reports:
 * - PostgreSQL: the writing transaction's id (`pg_current_xact_id()`). A reader takes the oldest transaction still
 *   running (`pg_snapshot_xmin`) before it reads, and next time reads from there, so a transaction that was still
 *   running, and commits later, is read then.
 * - SQLite: one more than the highest stamp. Writers take turns and each commits before the next begins, so a
 *   reader that has seen stamp S has seen every stamp below it.
 * Rows are never deleted by the triggers that keep them (a cell's count goes down to 0), so a copy stays whole.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable("report_map_cells")
    .addColumn("changed", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("report_map_cells_changed").on("report_map_cells").column("changed").execute();
  if (isPostgres(db)) {
    await sql`create function report_map_cells_stamp() returns trigger language plpgsql as $$
      begin NEW.changed := pg_current_xact_id()::text::bigint; return NEW; end $$`.execute(db);
    await sql`create trigger report_map_cells_stamp before insert or update on report_map_cells
      for each row execute function report_map_cells_stamp()`.execute(db);
    // Statistics for the new column now (every stamp 0), so the planner reads "changed since" through its index
    // from the first map after the upgrade instead of scanning the table until autovacuum analyses it.
    await sql`analyze report_map_cells`.execute(db);
  } else {
    const stamp = sql`update report_map_cells
      set changed = (select coalesce(max(changed), 0) + 1 from report_map_cells) where rowid = NEW.rowid`;
    await sql`create trigger report_map_cells_stamp_insert after insert on report_map_cells begin ${stamp}; end`.execute(
      db,
    );
    await sql`create trigger report_map_cells_stamp_update after update of n, lat_sum, lng_sum on report_map_cells
      begin ${stamp}; end`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists report_map_cells_stamp on report_map_cells`.execute(db);
    await sql`drop function if exists report_map_cells_stamp()`.execute(db);
  } else {
    await sql`drop trigger if exists report_map_cells_stamp_insert`.execute(db);
    await sql`drop trigger if exists report_map_cells_stamp_update`.execute(db);
  }
  await sql`drop index if exists report_map_cells_changed`.execute(db);
  await db.schema.alterTable("report_map_cells").dropColumn("changed").execute();
}
