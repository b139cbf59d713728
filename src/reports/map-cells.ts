import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { publicIn } from "../core/visibility.js";
import type { CellSum, MapFilter } from "./map-data.js";
import { UNRESOLVED_STATUSES } from "./model.js";

/** A copy of more rows than this is not kept: the whole area's sums are read by the query instead. */
export const MAX_COPIED_ROWS = 400_000;

interface CopiedRow {
  cell: number;
  category: string;
  status: ReportStatus;
  n: number;
  lat: number;
  lng: number;
}

/**
 * A process's copy of the public rows of `report_map_cells` (the map's sums per near-here cell, category, status and
 * slot), brought up to date after each change to the public data by reading only the rows changed since it last
 * looked (migration 0043's `changed` stamps), so the whole area's sums after a change cost a few rows, not all of
 * them. `sums` adds them up per cell for a filter, as `cellSums` (map-data.ts) does in SQL. Null when the area has
 * more rows than MAX_COPIED_ROWS (the caller reads per box then).
 */
export class MapCellCopy {
  private readonly rows = new Map<string, CopiedRow>();
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
    await this.catchUp(version);
    if (this.tooLarge) return null;
    const unresolved = filter.unresolved ? new Set<string>(UNRESOLVED_STATUSES) : null;
    const byCell = new Map<number, CellSum>();
    for (const r of this.rows.values()) {
      if (filter.category && r.category !== filter.category) continue;
      if (filter.status && r.status !== filter.status) continue;
      if (unresolved && !unresolved.has(r.status)) continue;
      const s = byCell.get(r.cell);
      if (s) {
        s.n += r.n;
        s.latSum += r.lat;
        s.lngSum += r.lng;
      } else byCell.set(r.cell, { cell: r.cell, n: r.n, latSum: r.lat, lngSum: r.lng });
    }
    return [...byCell.values()].filter((s) => s.n > 0).sort((a, b) => a.cell - b.cell);
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
    let q = db
      .selectFrom("report_map_cells")
      .select(["cell", "category_code", "status", "slot", "n", "lat_sum", "lng_sum"])
      .where(publicIn("report_map_cells"));
    if (this.from !== null) q = q.where("changed", ">=", this.from);
    const changed = await q.limit(this.maxRows + 1).execute();
    for (const r of changed) {
      const key = `${r.cell}|${r.category_code}|${r.status}|${r.slot}`;
      if (r.n <= 0) this.rows.delete(key);
      else {
        this.rows.set(key, {
          cell: Number(r.cell),
          category: r.category_code,
          status: r.status,
          n: r.n,
          lat: r.lat_sum,
          lng: r.lng_sum,
        });
      }
    }
    // Too many rows: not copied at all (for the life of the process), rather than a copy that is not whole.
    this.tooLarge = changed.length > this.maxRows || this.rows.size > this.maxRows;
    if (this.tooLarge) this.rows.clear();
    this.from = start;
    this.version = Math.max(this.version ?? version, version);
  }
}
