import { type Kysely, PostgresAdapter, type RawBuilder, sql } from "kysely";
import type { DB } from "./db/schema.js";

/** Grid cells per degree of the near-here index (migration 0006_open311). */
export const CELLS_PER_DEGREE = 500;
/** Above this many cells a radius query uses the plain bounding box (a large radius covers most of the area). */
export const MAX_CELLS = 400;

/**
 * The cell of a report's position, written exactly as the index expression of migration 0006_open311 so that
 * both databases use the index. Latitude and longitude are shifted to be positive, so truncation is floor.
 */
export function geoCellSql(db: Kysely<DB>): RawBuilder<number> {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<number>`(floor((latitude + 90) * 500)::bigint * 1000000 + floor((longitude + 180) * 500)::bigint)`
    : sql<number>`(CAST((latitude + 90) * 500 AS INTEGER) * 1000000 + CAST((longitude + 180) * 500 AS INTEGER))`;
}

/** The cell of a point, computed in JavaScript with the same IEEE arithmetic as the database. */
export function geoCell(lat: number, lng: number): number {
  return Math.floor((lat + 90) * CELLS_PER_DEGREE) * 1_000_000 + Math.floor((lng + 180) * CELLS_PER_DEGREE);
}

/**
 * Every cell that a bounding box touches, or null when there are more than MAX_CELLS or the box is not a finite,
 * well-ordered box. The count is checked before the loop and the loop itself stops at MAX_CELLS, so no input can
 * make it run long, whatever the caller validated.
 */
export function cellsCovering(south: number, west: number, north: number, east: number): number[] | null {
  const lat0 = Math.floor((south + 90) * CELLS_PER_DEGREE);
  const lat1 = Math.floor((north + 90) * CELLS_PER_DEGREE);
  const lng0 = Math.floor((west + 180) * CELLS_PER_DEGREE);
  const lng1 = Math.floor((east + 180) * CELLS_PER_DEGREE);
  if (![lat0, lat1, lng0, lng1].every(Number.isSafeInteger) || lat1 < lat0 || lng1 < lng0) return null;
  if ((lat1 - lat0 + 1) * (lng1 - lng0 + 1) > MAX_CELLS) return null;
  const cells: number[] = [];
  for (let a = lat0; a <= lat1 && cells.length < MAX_CELLS; a++) {
    for (let b = lng0; b <= lng1 && cells.length < MAX_CELLS; b++) cells.push(a * 1_000_000 + b);
  }
  return cells;
}

/**
 * Degrees typed as text (a form field, an Open311 parameter): a plain decimal number, signed or not, with at most
 * three digits before the point ("50.9862", "-2.04", "+1.", ".5"). Null when it is empty (after trimming), NaN when
 * it is anything else, so a long run of digits is never Infinity nor "1e2" a hundred. Whether it is in range is for
 * the caller to check, with its own messages.
 */
export function parseDegrees(text: string): number | null {
  const value = text.trim();
  if (value === "") return null;
  return /^[+-]?(\d{1,3}(\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
}

const EARTH_RADIUS_M = 6_371_000;

/** Great-circle distance in metres. */
export function distanceMetres(aLat: number, aLng: number, bLat: number, bLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (bLat - aLat) * rad;
  const dLng = (bLng - aLng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(aLat * rad) * Math.cos(bLat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}
