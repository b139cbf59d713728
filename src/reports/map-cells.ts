import { type Kysely, PostgresAdapter, type RawBuilder, sql } from "kysely";
import type { DB } from "../core/db/schema.js";
import { publicIn } from "../core/visibility.js";
import type { CellSum, MapFilter } from "./map-data.js";
import { UNRESOLVED_STATUSES } from "./model.js";

/** A copy of more combinations than this is not kept: the whole area's sums are read by the query instead. */
export const MAX_COPIED_ROWS = 400_000;
/** Past this many changed cells, the whole copy is read again (cheaper than that many cells one by one). */
const MAX_CHANGED_CELLS = 2_000;

/**
 * A process's copy of the public sums of `report_map_cells` per near-here cell, category and status (its slots added
 * up), brought up to date after each change to the public data by reading only the combinations with a row changed
 * since it last looked (migration 0043's `changed` stamps), so the whole area's sums after a change cost a few rows,
 * not all ~60,000 of a million reports. `sums` adds them up per cell for a filter, as `cellSums` (map-data.ts) does in
 * SQL. Null while the first copy is being made, and when the area has more combinations than MAX_COPIED_ROWS: the
 * caller reads the sums itself then.
 */
export class MapCellCopy {
  /** Combinations of cell, category and status (their slots added up), in columns: index by `combos`. */
  private readonly combos = new Map<string, number>();
  private readonly cell: number[] = [];
  private readonly category: number[] = [];
  private readonly status: number[] = [];
  private readonly n: number[] = [];
  private readonly lat: number[] = [];
  private readonly lng: number[] = [];
  /** Category codes and statuses as small numbers, and each cell's place in the sums. */
  private readonly names = new Map<string, number>();
  private readonly cells = new Map<number, number>();
  private readonly cellList: number[] = [];
  /** Rows stamped at or past this are read next time (none read yet: null). */
  private from: number | null = null;
  /** The public read version the copy is up to date with. */
  private version: number | null = null;
  private pending: Promise<void> | null = null;
  private tooLarge = false;

  constructor(
    private readonly db: () => Kysely<DB>,
    private readonly maxRows = MAX_COPIED_ROWS,
  ) {}

  /** The sums per cell of the public reports matching `filter`, up to date with public read version `version`. */
  async sums(filter: MapFilter, version: number): Promise<CellSum[] | null> {
    if (this.tooLarge) return null;
    if (this.version === null) {
      // The first copy (a few hundred milliseconds at a million reports) is made beside the answers: until it is
      // there, the caller reads the sums as before.
      this.catchUp(version).catch(() => undefined);
      return null;
    }
    await this.catchUp(version);
    if (this.tooLarge) return null;
    const category = filter.category ? (this.names.get(filter.category) ?? -2) : -1;
    const status = filter.status ? (this.names.get(filter.status) ?? -2) : -1;
    const unresolved = filter.unresolved ? new Set(UNRESOLVED_STATUSES.map((s) => this.names.get(s) ?? -2)) : null;
    const count = this.cellList.length;
    const n = new Float64Array(count);
    const lat = new Float64Array(count);
    const lng = new Float64Array(count);
    for (let i = 0; i < this.cell.length; i++) {
      if (category !== -1 && this.category[i] !== category) continue;
      if (status !== -1 && this.status[i] !== status) continue;
      if (unresolved && !unresolved.has(this.status[i] as number)) continue;
      const c = this.cell[i] as number;
      n[c] = (n[c] as number) + (this.n[i] as number);
      lat[c] = (lat[c] as number) + (this.lat[i] as number);
      lng[c] = (lng[c] as number) + (this.lng[i] as number);
    }
    const out: CellSum[] = [];
    for (let c = 0; c < count; c++) {
      if ((n[c] as number) > 0) {
        out.push({
          cell: this.cellList[c] as number,
          n: n[c] as number,
          latSum: lat[c] as number,
          lngSum: lng[c] as number,
        });
      }
    }
    return out.sort((a, b) => a.cell - b.cell);
  }

  /** One reader at a time; a caller for a version already caught up with reads nothing. */
  private async catchUp(version: number): Promise<void> {
    while (this.version === null || this.version < version) {
      if (!this.pending) {
        this.pending = this.read(version).finally(() => {
          this.pending = null;
        });
      }
      await this.pending;
    }
  }

  private name(value: string): number {
    let id = this.names.get(value);
    if (id === undefined) {
      id = this.names.size;
      this.names.set(value, id);
    }
    return id;
  }

  private combo(cell: number, category: string, status: string): number {
    const key = `${cell}|${category}|${status}`;
    let i = this.combos.get(key);
    if (i === undefined) {
      let c = this.cells.get(cell);
      if (c === undefined) {
        c = this.cellList.length;
        this.cells.set(cell, c);
        this.cellList.push(cell);
      }
      i = this.cell.length;
      this.combos.set(key, i);
      this.cell.push(c);
      this.category.push(this.name(category));
      this.status.push(this.name(status));
      this.n.push(0);
      this.lat.push(0);
      this.lng.push(0);
    }
    return i;
  }

  private async read(version: number): Promise<void> {
    const db = this.db();
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    // Where the next read starts, taken before this one: PostgreSQL's oldest transaction still running (one that
    // commits after this read has an id at or past it), SQLite's next stamp.
    const next = await (
      postgres
        ? sql<{ v: number | string }>`select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as v`
        : sql<{ v: number | string }>`select coalesce(max(changed), 0) + 1 as v from report_map_cells`
    ).execute(db);
    const start = Number(next.rows[0]?.v ?? 0);
    const limit = this.maxRows + 1;
    type Row = { cell: number | string; category_code: string; status: string; n: number; lat: number; lng: number };
    const m = sql.table("report_map_cells");
    const visible = publicIn("report_map_cells");
    const sums = (cells: RawBuilder<unknown>) =>
      sql<Row>`select cell, category_code, status, sum(n) as n, sum(lat_sum) as lat, sum(lng_sum) as lng
        from ${m} where ${visible} ${cells} group by cell, category_code, status limit ${limit}`.execute(db);
    // The first read adds up every combination of cell, category and status over its slots (through migration
    // 0035's index, in order); later ones first find the cells with a row stamped since, through the stamps' index,
    // and add up those cells' combinations again. SQLite's planner has no statistics for that index (none until an
    // ANALYZE) and read every public row through the visibility index instead (17 ms at a million reports), so it
    // is named there; PostgreSQL's statistics (migration 0043 analyses the table) find it.
    let changed: Row[] = [];
    const cells =
      this.from === null
        ? null
        : (
            await sql<{ cell: number | string }>`select distinct cell
              from ${m} ${postgres ? sql`` : sql`indexed by report_map_cells_changed`}
              where changed >= ${this.from} and ${visible} limit ${MAX_CHANGED_CELLS + 1}`.execute(db)
          ).rows.map((r) => Number(r.cell));
    if (cells === null || cells.length > MAX_CHANGED_CELLS) changed = (await sums(sql``)).rows;
    else {
      for (let i = 0; i < cells.length; i += 500) {
        const some = cells.slice(i, i + 500);
        changed.push(...(await sums(sql`and cell in (${sql.join(some)})`)).rows);
      }
    }
    if (changed.length > this.maxRows) {
      // Too many combinations: not copied at all (for the life of the process); the caller reads the sums per box.
      this.tooLarge = true;
      return;
    }
    for (const r of changed) {
      const i = this.combo(Number(r.cell), r.category_code, r.status);
      this.n[i] = Number(r.n);
      this.lat[i] = Number(r.lat);
      this.lng[i] = Number(r.lng);
    }
    this.from = start;
    this.version = Math.max(this.version ?? version, version);
  }
}
