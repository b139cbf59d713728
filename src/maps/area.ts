import { createHash } from "node:crypto";
import type { Bounds, Config } from "../config.js";

/** The tiles of one zoom from column minX to maxX and row minY to maxY, inclusive (Web Mercator "slippy map" tiles). */
export interface TileRange {
  z: number;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** The column of a longitude at zoom z, with its fraction. */
export function tileX(lng: number, z: number): number {
  return ((lng + 180) / 360) * 2 ** z;
}

/** The row of a latitude at zoom z, with its fraction. */
export function tileY(lat: number, z: number): number {
  const rad = (lat * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * 2 ** z;
}

/** The tiles covering `bounds` at zoom z, with `margin` more tiles on each side (kept inside the world). */
export function tileRange(bounds: Bounds, z: number, margin = 0): TileRange {
  const last = 2 ** z - 1;
  const clamp = (v: number) => Math.min(last, Math.max(0, v));
  return {
    z,
    minX: clamp(Math.floor(tileX(bounds.west, z)) - margin),
    maxX: clamp(Math.floor(tileX(bounds.east, z)) + margin),
    minY: clamp(Math.floor(tileY(bounds.north, z)) - margin),
    maxY: clamp(Math.floor(tileY(bounds.south, z)) + margin),
  };
}

export const rangeCount = (r: TileRange) => (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1);

export const inRange = (r: TileRange, x: number, y: number) => x >= r.minX && x <= r.maxX && y >= r.minY && y <= r.maxY;

/** `bounds` grown on every side by `fraction` of its height and width. */
function padded(bounds: Bounds, fraction: number): Bounds {
  const dLat = (bounds.north - bounds.south) * fraction;
  const dLng = (bounds.east - bounds.west) * fraction;
  return {
    south: Math.max(-85, bounds.south - dLat),
    north: Math.min(85, bounds.north + dLat),
    west: Math.max(-180, bounds.west - dLng),
    east: Math.min(180, bounds.east + dLng),
  };
}

/**
 * What the proxy serves around the village: its bounds grown by half their size on every side (the report form
 * lets the map move a quarter beyond them), plus three tiles on every side at every zoom, so that a map as wide as a
 * large screen, centred on the village at the lowest zoom, is covered. Beyond: 404, and nothing asked upstream.
 */
const SERVED_PADDING = 0.5;
const SERVED_MARGIN_TILES = 3;

/** The tiles the proxy serves at zoom z, or null for a zoom outside MAP_TILE_MIN_ZOOM–MAP_TILE_MAX_ZOOM. */
export function servedRange(config: Pick<Config, "village" | "map">, z: number): TileRange | null {
  if (!Number.isSafeInteger(z) || z < config.map.minZoom || z > config.map.maxZoom) return null;
  return tileRange(padded(config.village.bounds, SERVED_PADDING), z, SERVED_MARGIN_TILES);
}

/**
 * The zooms the report form's map shows (it opens at 16 and goes to 17 on a chosen street; 13 is its lowest), whose
 * tiles over the village the installed app keeps for offline use: enough to put a pin on a real map.
 */
export const OFFLINE_ZOOMS = [13, 14, 15, 16, 17] as const;
/** At most this many tiles are kept offline: for a larger area, the highest zooms are left out until they fit. */
export const OFFLINE_MAX_TILES = 1000;

/** The village's tiles the installed app keeps: a version naming them and their ranges. */
export interface OfflinePlan {
  /** Changes with the tile server and the area, so the app knows when to replace what it keeps. */
  version: string;
  zooms: TileRange[];
  count: number;
}

export function offlinePlan(config: Pick<Config, "village" | "map">): OfflinePlan {
  let zooms = OFFLINE_ZOOMS.filter((z) => z >= config.map.minZoom && z <= config.map.maxZoom).map((z) =>
    tileRange(config.village.bounds, z),
  );
  const total = (ranges: TileRange[]) => ranges.reduce((n, r) => n + rangeCount(r), 0);
  while (zooms.length > 0 && total(zooms) > OFFLINE_MAX_TILES) zooms = zooms.slice(0, -1);
  const version = createHash("sha256")
    .update(JSON.stringify({ upstream: config.map.upstreamUrl, zooms }))
    .digest("base64url")
    .slice(0, 16);
  return { version, zooms, count: total(zooms) };
}
