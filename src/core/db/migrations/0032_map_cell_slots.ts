import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * `report_map_cells` (0031) rows spread over slots by report id, as `report_counts` are (0019): on PostgreSQL two
 * reports committed at the same moment in the same cell, category and status had waited for each other's row lock
 * (each insert's trigger updates the one row); now consecutive reports land in different rows. Readers add the slots
 * up (src/reports/map-data.ts groups by cell already). MAP_CELL_SLOTS is 4, not report_counts' 16: the map of a whole
 * village reads every row of the cells in view, and a cell has at most this many rows per category and status, so
 * the read grows at most fourfold while two reports at once in one ~140 m cell, one category and one status rarely
 * share a row (and wait at most for the other's short transaction when they do).
 *
 * The table is rebuilt from `reports` with the same triggers as 0031 plus the slot; `down` rebuilds 0031's.
 */
export const MAP_CELL_SLOTS = 4;

function cellOf(db: MigrationDb, row: "OLD" | "NEW" | null) {
  const p = row ? `${row}.` : "";
  return isPostgres(db)
    ? sql.raw(`(floor((${p}latitude + 90) * 500)::bigint * 1000000 + floor((${p}longitude + 180) * 500)::bigint)`)
    : sql.raw(`(CAST((${p}latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((${p}longitude + 180) * 500 AS INTEGER))`);
}

const COLUMNS = ["latitude", "longitude", "category_code", "status", "visibility"];

async function dropCells(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists reports_map_cells_update on reports`.execute(db);
    await sql`drop trigger if exists reports_map_cells on reports`.execute(db);
    await sql`drop function if exists report_map_cells_track()`.execute(db);
  } else {
    for (const t of [
      "reports_map_cells_insert",
      "reports_map_cells_delete",
      "reports_map_cells_update_old",
      "reports_map_cells_update_new",
    ]) {
      await sql.raw(`drop trigger if exists ${t}`).execute(db);
    }
  }
  await db.schema.dropTable("report_map_cells").ifExists().execute();
}

/** Creates, fills and keeps `report_map_cells` with `slots` rows per cell, category, status and visibility. */
async function buildCells(db: MigrationDb, slots: number): Promise<void> {
  const slotted = slots > 1;
  let table = db.schema
    .createTable("report_map_cells")
    .addColumn("cell", "bigint", (c) => c.notNull())
    .addColumn("category_code", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("visibility", "text", (c) => c.notNull());
  if (slotted) table = table.addColumn("slot", "integer", (c) => c.notNull());
  const keyColumns = ["cell", "category_code", "status", "visibility", ...(slotted ? ["slot"] : [])];
  await table
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("lat_sum", "double precision", (c) => c.notNull())
    .addColumn("lng_sum", "double precision", (c) => c.notNull())
    .addPrimaryKeyConstraint("report_map_cells_pk", keyColumns as ["cell"])
    .execute();
  const slotOf = (row: "OLD" | "NEW" | null) => sql.raw(`${row ? `${row}.` : ""}id % ${slots}`);
  const slotColumn = slotted ? sql`, slot` : sql``;
  await sql`insert into report_map_cells (cell, category_code, status, visibility${slotColumn}, n, lat_sum, lng_sum)
    select ${cellOf(db, null)}, category_code, status, visibility${slotted ? sql`, ${slotOf(null)}` : sql``},
      count(*), sum(latitude), sum(longitude) from reports
    where latitude is not null and longitude is not null
    group by ${cellOf(db, null)}, category_code, status, visibility${slotted ? sql`, ${slotOf(null)}` : sql``}`.execute(
    db,
  );

  const key = (row: "OLD" | "NEW") =>
    sql`cell = ${cellOf(db, row)} and category_code = ${sql.raw(`${row}.category_code`)} and status = ${sql.raw(`${row}.status`)} and visibility = ${sql.raw(`${row}.visibility`)}${slotted ? sql` and slot = ${slotOf(row)}` : sql``}`;
  const remove = sql`update report_map_cells set n = n - 1, lat_sum = lat_sum - OLD.latitude, lng_sum = lng_sum - OLD.longitude where ${key("OLD")}`;
  const add = sql`insert into report_map_cells (cell, category_code, status, visibility${slotColumn}, n, lat_sum, lng_sum)
    values (${cellOf(db, "NEW")}, NEW.category_code, NEW.status, NEW.visibility${slotted ? sql`, ${slotOf("NEW")}` : sql``}, 1, NEW.latitude, NEW.longitude)
    on conflict (${sql.raw(keyColumns.join(", "))}) do update set n = report_map_cells.n + 1,
      lat_sum = report_map_cells.lat_sum + excluded.lat_sum, lng_sum = report_map_cells.lng_sum + excluded.lng_sum`;
  const changed = sql.raw(
    COLUMNS.map((c) => `OLD.${c} ${isPostgres(db) ? "is distinct from" : "is not"} NEW.${c}`).join(" or "),
  );
  const located = (row: "OLD" | "NEW") => sql.raw(`${row}.latitude is not null and ${row}.longitude is not null`);
  if (isPostgres(db)) {
    await sql`create function report_map_cells_track() returns trigger language plpgsql as $$
      begin
        if TG_OP in ('UPDATE', 'DELETE') and ${located("OLD")} then
          ${remove};
        end if;
        if TG_OP in ('UPDATE', 'INSERT') and ${located("NEW")} then
          ${add};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger reports_map_cells after insert or delete on reports
      for each row execute function report_map_cells_track()`.execute(db);
    await sql`create trigger reports_map_cells_update after update of ${sql.raw(COLUMNS.join(", "))} on reports
      for each row when (${changed}) execute function report_map_cells_track()`.execute(db);
  } else {
    await sql`create trigger reports_map_cells_insert after insert on reports when ${located("NEW")} begin
      ${add}; end`.execute(db);
    await sql`create trigger reports_map_cells_delete after delete on reports when ${located("OLD")} begin
      ${remove}; end`.execute(db);
    await sql`create trigger reports_map_cells_update_old after update of ${sql.raw(COLUMNS.join(", "))} on reports
      when (${changed}) and ${located("OLD")} begin ${remove}; end`.execute(db);
    await sql`create trigger reports_map_cells_update_new after update of ${sql.raw(COLUMNS.join(", "))} on reports
      when (${changed}) and ${located("NEW")} begin ${add}; end`.execute(db);
  }
}

export async function up(db: MigrationDb): Promise<void> {
  await dropCells(db);
  await buildCells(db, MAP_CELL_SLOTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await dropCells(db);
  await buildCells(db, 1);
}
