import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * Speed at a million reports.
 *
 * `report_counts`: how many reports there are per category, status and visibility, kept by triggers on `reports`
 * in the same transaction as every insert, delete and change of those three columns (a new report, a status
 * change, a moderation decision, a category change, a deletion), whichever code makes it. The public list reads
 * its "of N" from here instead of counting up to a million rows on every page. Each combination is spread over
 * COUNT_SLOTS rows by report id, so concurrent new reports on PostgreSQL do not queue on one counter row; readers
 * add the slots up.
 *
 * Indexes for the near-here reads: `reports_public_cell_created_point` replaces 0006's cell index with one that also
 * holds the position, so the radius test runs on the index and only the page's rows are read (Open311 near here);
 * `reports_category_cell` finds the open reports of one category in the cells around a point ("already reported?",
 * /report/nearby.json) without reading every report of the category. The cell expression is exactly 0006's. Both
 * start with the cell, which no other query filters on, so neither can tempt a planner away from the date indexes
 * of the lists (SQLite has no statistics on a new index until ANALYZE); both end with the id, so PostgreSQL answers
 * the radius test from the index alone (SQLite's indexes hold the rowid anyway). `report_updates_report_latest`
 * gives a report's latest update in (created_at, id) order without a sort of ties; `reports_duplicate_of` (partial:
 * only duplicates) finds the duplicates a report page lists.
 */
export const COUNT_SLOTS = 16;

const COLUMNS = ["category_code", "status", "visibility"] as const;

function cell(db: MigrationDb) {
  return isPostgres(db)
    ? sql`(floor((latitude + 90) * 500)::bigint * 1000000 + floor((longitude + 180) * 500)::bigint)`
    : sql`(CAST((latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((longitude + 180) * 500 AS INTEGER))`;
}

export async function up(db: MigrationDb): Promise<void> {
  await sql`create index reports_public_cell_created_point on reports (${cell(db)}, visibility, created_at, latitude, longitude, id)`.execute(
    db,
  );
  await db.schema.dropIndex("reports_public_cell_created").execute();
  // A report's latest public update, in (created_at, id) order straight from the index (PostgreSQL sorted ties).
  await db.schema
    .createIndex("report_updates_report_latest")
    .on("report_updates")
    .columns(["report_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("report_updates_report").execute();
  // The duplicates of a report (its page lists them; marking one checks them): without it, a full scan.
  await sql`create index reports_duplicate_of on reports (duplicate_of, created_at, id) where duplicate_of is not null`.execute(
    db,
  );
  await sql`create index reports_category_cell on reports (${cell(db)}, category_code, visibility, status, latitude, longitude, id)`.execute(
    db,
  );
  await db.schema
    .createTable("report_counts")
    .addColumn("category_code", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("slot", "integer", (c) => c.notNull())
    .addColumn("n", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("report_counts_pk", [...COLUMNS, "slot"])
    .execute();
  await sql`insert into report_counts (category_code, status, visibility, slot, n)
    select category_code, status, visibility, id % ${sql.lit(COUNT_SLOTS)}, count(*) from reports
    group by category_code, status, visibility, id % ${sql.lit(COUNT_SLOTS)}`.execute(db);

  const key = (row: "OLD" | "NEW") =>
    sql.raw(
      `category_code = ${row}.category_code and status = ${row}.status and visibility = ${row}.visibility and slot = ${row}.id % ${COUNT_SLOTS}`,
    );
  const add = (row: "OLD" | "NEW", n: 1 | -1) =>
    sql.raw(
      `insert into report_counts (category_code, status, visibility, slot, n) values (${row}.category_code, ${row}.status, ${row}.visibility, ${row}.id % ${COUNT_SLOTS}, ${n}) on conflict (category_code, status, visibility, slot) do update set n = report_counts.n + ${n}`,
    );
  const changed = sql.raw(
    COLUMNS.map((c) => `OLD.${c} ${isPostgres(db) ? "is distinct from" : "is not"} NEW.${c}`).join(" or "),
  );
  if (isPostgres(db)) {
    await sql`create function report_counts_track() returns trigger language plpgsql as $$
      begin
        if TG_OP in ('UPDATE', 'DELETE') then
          update report_counts set n = n - 1 where ${key("OLD")};
        end if;
        if TG_OP in ('UPDATE', 'INSERT') then
          ${add("NEW", 1)};
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger reports_counts after insert or delete on reports
      for each row execute function report_counts_track()`.execute(db);
    await sql`create trigger reports_counts_update after update of category_code, status, visibility on reports
      for each row when (${changed}) execute function report_counts_track()`.execute(db);
  } else {
    await sql`create trigger reports_counts_insert after insert on reports begin ${add("NEW", 1)}; end`.execute(db);
    await sql`create trigger reports_counts_delete after delete on reports begin
      update report_counts set n = n - 1 where ${key("OLD")}; end`.execute(db);
    await sql`create trigger reports_counts_update after update of category_code, status, visibility on reports
      when ${changed} begin
        update report_counts set n = n - 1 where ${key("OLD")};
        ${add("NEW", 1)};
      end`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists reports_counts_update on reports`.execute(db);
    await sql`drop trigger if exists reports_counts on reports`.execute(db);
    await sql`drop function if exists report_counts_track()`.execute(db);
  } else {
    for (const t of ["reports_counts_insert", "reports_counts_delete", "reports_counts_update"]) {
      await sql.raw(`drop trigger if exists ${t}`).execute(db);
    }
  }
  await db.schema.dropTable("report_counts").ifExists().execute();
  await db.schema.dropIndex("reports_category_cell").ifExists().execute();
  await db.schema.dropIndex("reports_duplicate_of").ifExists().execute();
  await db.schema
    .createIndex("report_updates_report")
    .on("report_updates")
    .columns(["report_id", "created_at"])
    .execute();
  await db.schema.dropIndex("report_updates_report_latest").ifExists().execute();
  await sql`create index reports_public_cell_created on reports (visibility, ${cell(db)}, created_at)`.execute(db);
  await db.schema.dropIndex("reports_public_cell_created_point").ifExists().execute();
}
