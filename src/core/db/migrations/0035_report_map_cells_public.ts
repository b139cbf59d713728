import { sql } from "kysely";
import type { MigrationDb } from "./helpers.js";

/**
 * The reports map at a million reports (issue 35): an index of `report_map_cells` that holds everything the map
 * reads of it (src/reports/map-data.ts `cellSums`: the public rows by cell, with their category, status, count and
 * sums of positions), so the whole area's sums per cell are read from the index in cell order, without a lookup of
 * each row and without sorting them to group by cell. On SQLite, at a million reports (~30,000 rows), the whole
 * village's sums took 4 times as long through the primary key (which starts with the cell but holds none of the
 * sums). The triggers that keep the table (migration 0031) keep the index too: one more entry to move per change.
 */
export async function up(db: MigrationDb): Promise<void> {
  await sql`create index report_map_cells_public_sums
    on report_map_cells (visibility, cell, category_code, status, n, lat_sum, lng_sum)`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`drop index if exists report_map_cells_public_sums`.execute(db);
}
