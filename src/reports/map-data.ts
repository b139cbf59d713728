import { type Kysely, PostgresAdapter, type RawBuilder, sql } from "kysely";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { publicReport } from "../core/visibility.js";
import { REPORT_STATUSES, open311Status } from "./model.js";

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

/** The statuses of a report still being dealt with (Open311 "open"): what is left when fixed and closed are hidden. */
export const UNRESOLVED_STATUSES: ReportStatus[] = REPORT_STATUSES.filter((s) => open311Status(s) === "open");

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

const round = (n: number) => Math.round(n * 1e5) / 1e5;

/**
 * The public reports in `box` for a map at `zoom`: each report, when there are at most MAX_POINTS and the zoom is
 * above GRID_MAX_ZOOM; otherwise counted per cell of a grid of about 64 screen pixels at that zoom (at most 64 × 64
 * cells), a cell of one report being given as that report. The grid is aligned on whole degrees, so a cell holds the
 * same reports however the map is moved.
 */
export async function mapReports(db: Kysely<DB>, filter: MapFilter, box: Bbox, zoom: number): Promise<MapAnswer> {
  const [west, south, east, north] = box;
  if (zoom > GRID_MAX_ZOOM) {
    const rows = await filtered(db, filter, box)
      .select(["reports.reference", "reports.latitude", "reports.longitude", "reports.status", "reports.title"])
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc")
      .limit(MAX_POINTS + 1)
      .execute();
    if (rows.length <= MAX_POINTS) {
      return {
        bbox: box,
        zoom,
        total: rows.length,
        points: rows.map((r) => [r.reference, round(r.latitude ?? 0), round(r.longitude ?? 0), r.status, r.title]),
        clusters: [],
      };
    }
  }
  // 64 px of a 256 px tile at this zoom, in degrees of longitude; latitude degrees are shorter on the map by cos(φ).
  const midLat = ((south + north) / 2) * (Math.PI / 180);
  const lngCell = Math.max(360 / 2 ** (zoom + 2), (east - west) / MAX_CELLS_ACROSS);
  const latCell = Math.max(lngCell * Math.max(Math.cos(midLat), 0.01), (north - south) / MAX_CELLS_ACROSS);
  const gx = cellIndex(db, sql`(longitude + 180) / ${lngCell}`);
  const gy = cellIndex(db, sql`(latitude + 90) / ${latCell}`);
  const rows = await filtered(db, filter, box)
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as("n"),
      eb.fn.avg<number | string>("reports.latitude").as("lat"),
      eb.fn.avg<number | string>("reports.longitude").as("lng"),
      eb.fn.min("reports.reference").as("reference"),
      eb.fn.min("reports.status").as("status"),
      eb.fn.min("reports.title").as("title"),
    ])
    .groupBy([gx, gy])
    .execute();
  const points: MapPoint[] = [];
  const clusters: MapCluster[] = [];
  let total = 0;
  for (const r of rows) {
    const n = Number(r.n);
    const lat = round(Number(r.lat));
    const lng = round(Number(r.lng));
    total += n;
    if (n === 1) points.push([r.reference, lat, lng, r.status, r.title]);
    else clusters.push([lat, lng, n]);
  }
  return { bbox: box, zoom, total, points, clusters };
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
