import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { inRange, OFFLINE_MAX_TILES, offlinePlan, rangeCount, servedRange, tileRange, tileX, tileY } from "./area.js";

/** Every tile the proxy may fetch for the demo village, zooms 12 to 19 (stated in docs/operations.md "Map tiles"). */
const SERVED_TOTAL = 20_730;

const config = (env: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: "/tmp/civic-area-test", SESSION_SECRET: "area-test-secret-area-test-secret-0123", ...env });

describe("the village's map tiles", () => {
  it("numbers tiles as the slippy-map scheme does", () => {
    expect(tileX(-180, 3)).toBe(0);
    expect(tileX(0, 1)).toBe(1);
    expect(Math.floor(tileY(0, 1))).toBe(1);
    // The top edge of the Web Mercator world (85.0511°) is row 0's top; the equator is the middle row's top.
    expect(tileY(85.05112878, 4)).toBeCloseTo(0, 5);
    expect(tileY(0, 4)).toBeCloseTo(8, 10);
  });

  it("keeps ranges inside the world", () => {
    expect(tileRange({ south: -89, west: -180, north: 89, east: 180 }, 2, 5)).toEqual({
      z: 2,
      minX: 0,
      maxX: 3,
      minY: 0,
      maxY: 3,
    });
  });

  it("serves the configured zooms only, over the village and around it", () => {
    const c = config();
    expect(servedRange(c, 11)).toBeNull();
    expect(servedRange(c, 20)).toBeNull();
    expect(servedRange(c, 12.5)).toBeNull();
    expect(servedRange(c, Number.NaN)).toBeNull();
    let total = 0;
    for (let z = 12; z <= 19; z++) {
      const served = servedRange(c, z)!;
      const village = tileRange(c.village.bounds, z);
      expect(inRange(served, village.minX - 3, village.minY - 3)).toBe(true);
      expect(inRange(served, village.maxX + 3, village.maxY + 3)).toBe(true);
      total += rangeCount(served);
    }
    // The demo village (3 km by 2.5 km): what the proxy may ever fetch, all zooms together.
    expect(total).toBe(SERVED_TOTAL);
    expect(servedRange(config({ MAP_TILE_MIN_ZOOM: "14", MAP_TILE_MAX_ZOOM: "16" }), 13)).toBeNull();
  });

  it("keeps the report form's zooms over the village for offline use, within a bound", () => {
    const plan = offlinePlan(config());
    expect(plan.zooms.map((r) => r.z)).toEqual([13, 14, 15, 16, 17]);
    expect(plan.count).toBe(plan.zooms.reduce((n, r) => n + rangeCount(r), 0));
    // docs/operations.md "Map tiles" states these figures for the demo village.
    expect(plan.zooms.map(rangeCount)).toEqual([2, 4, 16, 64, 224]);
    expect(plan.count).toBe(310);
    expect(plan.count).toBeLessThanOrEqual(OFFLINE_MAX_TILES);
    // A large area leaves out its highest zooms; another tile server is another version.
    const county = offlinePlan(config({ VILLAGE_BOUNDS: "50.7,-2.5,51.2,-1.8" }));
    expect(county.count).toBeLessThanOrEqual(OFFLINE_MAX_TILES);
    expect(county.zooms.at(-1)!.z).toBeLessThan(17);
    const other = offlinePlan(config({ MAP_TILE_URL: "https://tiles.example.net/{z}/{x}/{y}.png" }));
    expect(other.version).not.toBe(plan.version);
    expect(offlinePlan(config()).version).toBe(plan.version);
  });
});
