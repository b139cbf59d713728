import { type Kysely, PostgresAdapter, type RawBuilder, sql } from "kysely";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { CELLS_PER_DEGREE, cellsCovering, geoCellSql } from "../core/geo.js";
import { publicIn, publicReport } from "../core/visibility.js";
import { UNRESOLVED_STATUSES } from "./model.js";

/**
 * The data behind the reports maps and the GeoJSON of public reports: only public reports (core/visibility.ts),
 * only the columns a map needs, always bounded by an area, a zoom or a count.
 */

/** A box in degrees: west, south, east, north (GeoJSON's order, RFC 7946 §5). */
export type Bbox = [west: number, south: number, east: number, north: number];

/** A decimal number of degrees (no exponent, no Infinity, no NaN): four of them, comma-separated, make a bbox. */
const DEGREES = "[+-]?\\d{1,3}(?:\\.\\d{1,15})?";
export const BBOX_PATTERN = `^${DEGREES},${DEGREES},${DEGREES},${DEGREES}$`;

/**
 * Reads `west,south,east,north`. The schema's pattern already refuses anything that is not four plain decimals;
 * here the box must also be in range (longitude ±180, latitude ±90) and in order (west < east, south < north),
 * else a 400 that says so.
 */
export function parseBbox(text: string, field = "bbox"): Bbox {
  const parts = text.split(",").map(Number);
  const fail = (message: string) =>
    new AppError(
      "validation_failed",
      `${field} ${message}. Give west,south,east,north in degrees, e.g. ${field}=-2.07,50.97,-2.02,51.0.`,
      {
        fields: [{ field, message }],
      },
    );
  if (parts.length !== 4 || !parts.every(Number.isFinite)) throw fail("must be four numbers");
  const [west, south, east, north] = parts as Bbox;
  if (west < -180 || east > 180 || south < -90 || north > 90) throw fail("is out of range");
  if (!(west < east) || !(south < north)) throw fail("must have west < east and south < north");
  return [west, south, east, north];
}

export interface MapFilter {
  category?: string | undefined;
  status?: ReportStatus | undefined;
  /** Leave out fixed, closed, duplicate and not-the-council's reports. */
  unresolved?: boolean | undefined;
}

function filtered(db: Kysely<DB>, filter: MapFilter, box: Bbox) {
  const [west, south, east, north] = box;
  let q = db
    .selectFrom("reports")
    .where(publicReport)
    .where("reports.latitude", ">=", south)
    .where("reports.latitude", "<=", north)
    .where("reports.longitude", ">=", west)
    .where("reports.longitude", "<=", east);
  if (filter.category) q = q.where("reports.category_code", "=", filter.category);
  if (filter.status) q = q.where("reports.status", "=", filter.status);
  if (filter.unresolved) q = q.where("reports.status", "in", UNRESOLVED_STATUSES);
  return q;
}

/** Up to this many reports are sent one by one (the browser groups them); past it, the area is counted per cell. */
export const MAX_POINTS = 500;
/** At this zoom and below (a whole district on screen) the server always counts per cell. */
export const GRID_MAX_ZOOM = 12;
/** At most this many cells across or down a box, whatever the zoom: the answer stays small. */
const MAX_CELLS_ACROSS = 64;

/** One report on the map: reference, latitude, longitude, status, title. */
export type MapPoint = [reference: string, lat: number, lng: number, status: ReportStatus, title: string];
/** Several reports counted together: latitude and longitude of their mean position, how many. */
export type MapCluster = [lat: number, lng: number, count: number];

export interface MapAnswer {
  bbox: Bbox;
  zoom: number;
  /** How many reports match in the box. */
  total: number;
  points: MapPoint[];
  clusters: MapCluster[];
}

/** A position as the map data gives it: 5 decimals (about a metre). */
export const round = (n: number) => Math.round(n * 1e5) / 1e5;

/** The columns of a report the map data gives one by one (a MapPoint). */
export const POINT_COLUMNS = [
  "reports.reference",
  "reports.latitude",
  "reports.longitude",
  "reports.status",
  "reports.title",
] as const;

/** The answer of a box whose reports are few enough to give one by one (rows of POINT_COLUMNS). */
export function pointsAnswer(
  rows: {
    reference: string;
    latitude: number | null;
    longitude: number | null;
    status: ReportStatus;
    title: string;
  }[],
  box: Bbox,
  zoom: number,
): MapAnswer {
  return {
    bbox: box,
    zoom,
    total: rows.length,
    points: rows.map((r) => [r.reference, round(r.latitude ?? 0), round(r.longitude ?? 0), r.status, r.title]),
    clusters: [],
  };
}

/** Reports matching the filters inside `box`, through the near-here cells when there are few enough of them. */
function located(db: Kysely<DB>, filter: MapFilter, box: Bbox) {
  const [west, south, east, north] = box;
  const cells = cellsCovering(south, west, north, east);
  const q = filtered(db, filter, box);
  return cells ? q.where(sql<boolean>`${geoCellSql(db)} in (${sql.join(cells)})`) : q;
}

/** A near-here cell's matching public reports: how many, and the sums of their latitudes and longitudes. */
export interface CellSum {
  cell: number;
  n: number;
  latSum: number;
  lngSum: number;
}

/**
 * Every near-here cell's sums for a filter over the whole area, kept by the caller per public read version
 * (map-routes.ts), so that a moved map costs no query for them. Null when the area has more than MAX_KEPT_CELLS.
 */
export interface KeptCellSums {
  /** The sums if they are kept already (for this version), else undefined: nothing is read. */
  ready(): CellSum[] | null | undefined;
  /** The sums, read (by `cellSums` without a range) and kept when they are not yet. */
  load(): Promise<CellSum[] | null>;
}

/** A box touching at most this many near-here cells (a street or two) reads its own unless the area's are kept. */
const SMALL_BOX_CELLS = 16;

/** The most cells kept for one filter (a village has a few hundred; a town of 20 km × 20 km about 13,000). */
export const MAX_KEPT_CELLS = 20_000;

/**
 * The public reports in `box` for a map at `zoom`: each report, when there are at most MAX_POINTS and the zoom is
 * above GRID_MAX_ZOOM; otherwise counted per cell of a grid of about 64 screen pixels at that zoom (at most 64 × 64
 * cells), a cell of one report being given as that report. The grid is aligned on whole degrees, so a cell holds the
 * same reports however the map is moved. Where the grid's cells are at least as wide as the near-here cells, the
 * counts come from `report_map_cells` (migrations 0031 and 0032: a few thousand rows for a whole village of a million
 * reports, each cell's rows spread over slots, summed here), and a near-here cell counts whole (its reports' mean
 * position decides its grid cell); below, from the reports themselves. The sums per near-here cell are read once (or
 * taken from `all`, the whole area's kept by the caller) and serve both the decision and the grid.
 */
export async function mapReports(
  db: Kysely<DB>,
  filter: MapFilter,
  box: Bbox,
  zoom: number,
  all?: KeptCellSums,
): Promise<MapAnswer> {
  const [west, south, east, north] = box;
  const range = cellRange(box);
  // A small box reads its own few cells unless the whole area's are kept already; a large one reads (and keeps) the
  // whole area's, which cost about what its own do and serve every later box until the public data changes.
  const kept = all ? (range.count <= SMALL_BOX_CELLS ? all.ready() : await all.load()) : undefined;
  const cells = kept ? kept.filter((c) => inRange(c.cell, range)) : await cellSums(db, filter, range);
  // Each report, if there are few enough: the counts per near-here cell say first whether there can be (the cells
  // reach a little past the box), so a whole village of a million reports is never read to find out.
  if (zoom > GRID_MAX_ZOOM && cells.reduce((sum, c) => sum + c.n, 0) <= MAX_POINTS) {
    const rows = await located(db, filter, box)
      .select(POINT_COLUMNS)
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc")
      .limit(MAX_POINTS + 1)
      .execute();
    if (rows.length <= MAX_POINTS) return pointsAnswer(rows, box, zoom);
  }
  // 64 px of a 256 px tile at this zoom, in degrees of longitude; latitude degrees are longer on the map by 1/cos(φ).
  const midLat = ((south + north) / 2) * (Math.PI / 180);
  const lngCell = Math.max(360 / 2 ** (zoom + 2), (east - west) / MAX_CELLS_ACROSS);
  const latCell = Math.max(lngCell * Math.max(Math.cos(midLat), 0.01), (north - south) / MAX_CELLS_ACROSS);
  const groups =
    lngCell >= 1 / CELLS_PER_DEGREE
      ? await countedCells(db, filter, cells, lngCell, latCell)
      : await countedReports(db, filter, box, lngCell, latCell);
  const points: MapPoint[] = [];
  const clusters: MapCluster[] = [];
  let total = 0;
  for (const g of groups) {
    total += g.n;
    if (g.single) points.push(g.single);
    else if (g.n > 0) clusters.push([round(g.lat), round(g.lng), g.n]);
  }
  return { bbox: box, zoom, total, points, clusters };
}

/** The near-here cells a box touches, as ranges of cell numbers: rows lat0…lat1, columns lng0…lng1. */
function cellRange(box: Bbox): CellRange {
  const [west, south, east, north] = box;
  const lat0 = Math.floor((south + 90) * CELLS_PER_DEGREE);
  const lat1 = Math.floor((north + 90) * CELLS_PER_DEGREE);
  const lng0 = Math.floor((west + 180) * CELLS_PER_DEGREE);
  const lng1 = Math.floor((east + 180) * CELLS_PER_DEGREE);
  return {
    lng0,
    lng1,
    first: lat0 * 1_000_000 + lng0,
    last: lat1 * 1_000_000 + lng1,
    count: (lat1 - lat0 + 1) * (lng1 - lng0 + 1),
  };
}

interface CellRange {
  lng0: number;
  lng1: number;
  first: number;
  last: number;
  /** How many cells the box touches. */
  count: number;
}

const inRange = (cell: number, r: CellRange) =>
  cell >= r.first && cell <= r.last && cell % 1_000_000 >= r.lng0 && cell % 1_000_000 <= r.lng1;

/**
 * The sums per near-here cell of the matching public reports, from `report_map_cells`: inside a range of cells, or
 * (no range) over the whole area, at most MAX_KEPT_CELLS + 1 cells. Cells without a report are left out.
 */
export async function cellSums(db: Kysely<DB>, filter: MapFilter, range?: CellRange): Promise<CellSum[]> {
  let q = cellFilter(db, filter).select((eb) => [
    "cell",
    eb.fn.sum<number | string>("n").as("n"),
    eb.fn.sum<number | string>("lat_sum").as("lat"),
    eb.fn.sum<number | string>("lng_sum").as("lng"),
  ]);
  q = range
    ? q
        .where("cell", ">=", range.first)
        .where("cell", "<=", range.last)
        .where(sql<boolean>`cell % 1000000 between ${range.lng0} and ${range.lng1}`)
    : q.limit(MAX_KEPT_CELLS + 1);
  const rows = await q.groupBy("cell").orderBy("cell").execute();
  const sums: CellSum[] = [];
  for (const r of rows) {
    const n = Number(r.n);
    if (n > 0) sums.push({ cell: Number(r.cell), n, latSum: Number(r.lat), lngSum: Number(r.lng) });
  }
  return sums;
}

interface Group {
  n: number;
  lat: number;
  lng: number;
  /** The report, when the group holds one. */
  single?: MapPoint | undefined;
}

/** A grid cell's index pair as a key. */
const gridKey = (lat: number, lng: number, latCell: number, lngCell: number) =>
  `${Math.floor((lat + 90) / latCell)}:${Math.floor((lng + 180) / lngCell)}`;

/** The filters, on `report_map_cells`. */
function cellFilter(db: Kysely<DB>, filter: MapFilter) {
  let q = db.selectFrom("report_map_cells").where(publicIn("report_map_cells")).where("n", ">", 0);
  if (filter.category) q = q.where("category_code", "=", filter.category);
  if (filter.status) q = q.where("status", "=", filter.status);
  if (filter.unresolved) q = q.where("status", "in", UNRESOLVED_STATUSES);
  return q;
}

/** Counts per grid cell from the near-here cells' sums: each near-here cell in its grid cell. */
async function countedCells(
  db: Kysely<DB>,
  filter: MapFilter,
  cells: CellSum[],
  lngCell: number,
  latCell: number,
): Promise<Group[]> {
  const groups = new Map<string, Group & { cells: number[] }>();
  for (const { cell, n, latSum, lngSum } of cells) {
    const lat = latSum / n;
    const lng = lngSum / n;
    const key = gridKey(lat, lng, latCell, lngCell);
    const g = groups.get(key) ?? { n: 0, lat: 0, lng: 0, cells: [] };
    g.lat = (g.lat * g.n + lat * n) / (g.n + n);
    g.lng = (g.lng * g.n + lng * n) / (g.n + n);
    g.n += n;
    g.cells.push(cell);
    groups.set(key, g);
  }
  // A group of one report is that report: read from the reports of its cells (one report in all).
  const lone = [...groups.values()].filter((g) => g.n === 1);
  if (lone.length > 0) {
    let q = db
      .selectFrom("reports")
      .where(publicReport)
      .where(sql<boolean>`${geoCellSql(db)} in (${sql.join(lone.flatMap((g) => g.cells))})`);
    if (filter.category) q = q.where("reports.category_code", "=", filter.category);
    if (filter.status) q = q.where("reports.status", "=", filter.status);
    if (filter.unresolved) q = q.where("reports.status", "in", UNRESOLVED_STATUSES);
    const reports = await q
      .select(["reports.reference", "reports.latitude", "reports.longitude", "reports.status", "reports.title"])
      .where("reports.latitude", "is not", null)
      .limit(lone.length)
      .execute();
    for (const r of reports) {
      const g = groups.get(gridKey(r.latitude ?? 0, r.longitude ?? 0, latCell, lngCell));
      if (g?.n === 1) g.single = [r.reference, round(r.latitude ?? 0), round(r.longitude ?? 0), r.status, r.title];
    }
  }
  return [...groups.values()];
}

/** Counts per grid cell from the reports themselves (a small area at a high zoom). */
async function countedReports(
  db: Kysely<DB>,
  filter: MapFilter,
  box: Bbox,
  lngCell: number,
  latCell: number,
): Promise<Group[]> {
  const gx = cellIndex(db, sql`(longitude + 180) / ${lngCell}`);
  const gy = cellIndex(db, sql`(latitude + 90) / ${latCell}`);
  const rows = await located(db, filter, box)
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as("n"),
      eb.fn.avg<number | string>("reports.latitude").as("lat"),
      eb.fn.avg<number | string>("reports.longitude").as("lng"),
      eb.fn.min("reports.id").as("id"),
    ])
    .groupBy([gx, gy])
    .execute();
  const groups: Group[] = rows.map((r) => ({ n: Number(r.n), lat: Number(r.lat), lng: Number(r.lng) }));
  const loneIds = rows.filter((r) => Number(r.n) === 1).map((r) => Number(r.id));
  if (loneIds.length > 0) {
    const reports = await db
      .selectFrom("reports")
      .select([
        "reports.id",
        "reports.reference",
        "reports.latitude",
        "reports.longitude",
        "reports.status",
        "reports.title",
      ])
      .where("reports.id", "in", loneIds)
      .where(publicReport)
      .execute();
    const byId = new Map(reports.map((r) => [r.id, r]));
    rows.forEach((r, i) => {
      const found = Number(r.n) === 1 ? byId.get(Number(r.id)) : undefined;
      const g = groups[i];
      if (found && g) {
        g.single = [
          found.reference,
          round(found.latitude ?? 0),
          round(found.longitude ?? 0),
          found.status,
          found.title,
        ];
      }
    });
  }
  return groups;
}

/** floor() of a positive number, written for each database. */
function cellIndex(db: Kysely<DB>, value: RawBuilder<unknown>): RawBuilder<number> {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<number>`floor(${value})::bigint`
    : sql<number>`CAST(${value} AS INTEGER)`;
}

/** One public report as GeoJSON wants it (no personal data: the public columns only). */
export interface GeoReport {
  reference: string;
  title: string;
  categoryCode: string;
  status: ReportStatus;
  lat: number;
  lng: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * A page of public reports with a position (newest first), matching the filters and, when given, inside `box`;
 * `before` is the reference of the last report of the previous page (keyset paging). Null when `before` is unknown.
 */
export async function geoReports(
  db: Kysely<DB>,
  filter: MapFilter,
  box: Bbox | null,
  page: { limit: number; before?: string | undefined },
): Promise<GeoReport[] | null> {
  let q = box
    ? filtered(db, filter, box)
    : db
        .selectFrom("reports")
        .where(publicReport)
        .where("reports.latitude", "is not", null)
        .where("reports.longitude", "is not", null);
  if (!box) {
    if (filter.category) q = q.where("reports.category_code", "=", filter.category);
    if (filter.status) q = q.where("reports.status", "=", filter.status);
    if (filter.unresolved) q = q.where("reports.status", "in", UNRESOLVED_STATUSES);
  }
  if (page.before) {
    const cursor = await db
      .selectFrom("reports")
      .select(["created_at", "id"])
      .where("reference", "=", page.before)
      .executeTakeFirst();
    if (!cursor) return null;
    q = q
      .where("reports.created_at", "<=", cursor.created_at)
      .where((eb) => eb(eb.refTuple("reports.created_at", "reports.id"), "<", eb.tuple(cursor.created_at, cursor.id)));
  }
  const rows = await q
    .select([
      "reports.reference",
      "reports.title",
      "reports.category_code",
      "reports.status",
      "reports.latitude",
      "reports.longitude",
      "reports.created_at",
      "reports.updated_at",
    ])
    .orderBy("reports.created_at", "desc")
    .orderBy("reports.id", "desc")
    .limit(page.limit)
    .execute();
  return rows.map((r) => ({
    reference: r.reference,
    title: r.title,
    categoryCode: r.category_code,
    status: r.status,
    lat: r.latitude ?? 0,
    lng: r.longitude ?? 0,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
