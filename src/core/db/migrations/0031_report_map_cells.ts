import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * The reports map at a million reports (issue 35): `report_map_cells` counts the reports with a position per grid
 * cell of the near-here index (500 cells a degree, about 140 m × 220 m in the village; migration 0006's cell),
 * category, status and visibility, with the sums of their latitudes and longitudes (so a cell's reports have a mean
 * position). Kept by triggers on `reports` in the same transaction as every insert, delete and change of the
 * columns it counts by, whichever code makes it, as `report_counts` is (0019). The map of a whole village then reads
 * a few thousand rows instead of a million reports (src/reports/map-data.ts). Unlike `report_counts`, rows are not
 * spread over slots: the map would read sixteen times as many; two reports committed at the same moment in the same
 * cell, category and status wait for each other's row lock on PostgreSQL.
 */
function cellOf(db: MigrationDb, row: "OLD" | "NEW") {
  return isPostgres(db)
    ? sql.raw(`(floor((${row}.latitude + 90) * 500)::bigint * 1000000 + floor((${row}.longitude + 180) * 500)::bigint)`)
    : sql.raw(
        `(CAST((${row}.latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((${row}.longitude + 180) * 500 AS INTEGER))`,
      );
}

function columnCell(db: MigrationDb) {
  return isPostgres(db)
    ? sql`(floor((latitude + 90) * 500)::bigint * 1000000 + floor((longitude + 180) * 500)::bigint)`
    : sql`(CAST((latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((longitude + 180) * 500 AS INTEGER))`;
}

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable("report_map_cells")
    .addColumn("cell", "bigint", (c) => c.notNull())
    .addColumn("category_code", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("lat_sum", "double precision", (c) => c.notNull())
    .addColumn("lng_sum", "double precision", (c) => c.notNull())
    .addPrimaryKeyConstraint("report_map_cells_pk", ["cell", "category_code", "status", "visibility"])
    .execute();
  await sql`insert into report_map_cells (cell, category_code, status, visibility, n, lat_sum, lng_sum)
    select ${columnCell(db)}, category_code, status, visibility, count(*), sum(latitude), sum(longitude) from reports
    where latitude is not null and longitude is not null
    group by ${columnCell(db)}, category_code, status, visibility`.execute(db);

  const key = (row: "OLD" | "NEW") =>
    sql`cell = ${cellOf(db, row)} and category_code = ${sql.raw(`${row}.category_code`)} and status = ${sql.raw(`${row}.status`)} and visibility = ${sql.raw(`${row}.visibility`)}`;
  const remove = sql`update report_map_cells set n = n - 1, lat_sum = lat_sum - OLD.latitude, lng_sum = lng_sum - OLD.longitude where ${key("OLD")}`;
  const add = sql`insert into report_map_cells (cell, category_code, status, visibility, n, lat_sum, lng_sum)
    values (${cellOf(db, "NEW")}, NEW.category_code, NEW.status, NEW.visibility, 1, NEW.latitude, NEW.longitude)
    on conflict (cell, category_code, status, visibility) do update set n = report_map_cells.n + 1,
      lat_sum = report_map_cells.lat_sum + excluded.lat_sum, lng_sum = report_map_cells.lng_sum + excluded.lng_sum`;
  const columns = ["latitude", "longitude", "category_code", "status", "visibility"];
  const changed = sql.raw(
    columns.map((c) => `OLD.${c} ${isPostgres(db) ? "is distinct from" : "is not"} NEW.${c}`).join(" or "),
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
    await sql`create trigger reports_map_cells_update after update of ${sql.raw(columns.join(", "))} on reports
      for each row when (${changed}) execute function report_map_cells_track()`.execute(db);
  } else {
    await sql`create trigger reports_map_cells_insert after insert on reports when ${located("NEW")} begin
      ${add}; end`.execute(db);
    await sql`create trigger reports_map_cells_delete after delete on reports when ${located("OLD")} begin
      ${remove}; end`.execute(db);
    await sql`create trigger reports_map_cells_update_old after update of ${sql.raw(columns.join(", "))} on reports
      when (${changed}) and ${located("OLD")} begin ${remove}; end`.execute(db);
    await sql`create trigger reports_map_cells_update_new after update of ${sql.raw(columns.join(", "))} on reports
      when (${changed}) and ${located("NEW")} begin ${add}; end`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
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
