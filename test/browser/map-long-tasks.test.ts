import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { createTestDatabase, testConfig } from "../helpers/app.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";

/**
 * The longest main-thread task allowed while /reports loads and draws its map, on a CPU slowed 4 times: half the old
 * map's shortest (326 ms), with room for the other test worker sharing the two cores (65 to 89 ms measured at a load
 * average of 11 to 13; at 20 and more the machine, not the page, decides).
 */
const LONGEST_MS = 150;

/** Records every long task (over 50 ms) of the page from its start (runs in the page, before its scripts). */
function watchLongTasks(): void {
  const w = window as unknown as { longTasks: { start: number; duration: number }[] };
  w.longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) w.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
}

/**
 * Lighthouse mobile scores /reports on a phone with its CPU slowed 4 times; its Total Blocking Time (the parts of
 * long tasks past 50 ms) cost the page 20 points when the map of every report came (TBT 960 ms). Here, on the same
 * 4× slower CPU, no task of the page, from its first byte until its map has drawn its markers and the list of the
 * reports in view, may last over LONGEST_MS. Before the maps worked in steps, /reports's longest task was 326 to
 * 600 ms in every load; a report's page, whose map is small, is held to the same bound.
 */
describe.skipIf(!browserAvailable())("long tasks on the reports map", { timeout: 180_000 }, () => {
  const site = browserSite(
    async () => {
      const db = await createTestDatabase("sqlite");
      await seedDemoVillage(db.database.db, new Date());
      const config = testConfig(db.dataDir, { MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png" });
      const app = await buildApp(config, { logger: false, database: db.database });
      return {
        app,
        async close() {
          await app.close();
          await db.cleanup();
        },
      };
    },
    { host: "127.0.0.1" },
  );

  /** The long tasks of one load of `path` at phone size on a 4× slower CPU, once `ready` is on the page. */
  async function longTasks(path: string, ready: string): Promise<{ start: number; duration: number }[]> {
    const context = await site.browser.newContext({ viewport: { width: 412, height: 823 } });
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      await page.addInitScript(watchLongTasks);
      await page.goto(`${site.base}${path}`, { waitUntil: "load" });
      await page.waitForSelector(ready, { timeout: 60_000 });
      // Whatever the map does after its first markers (the rest of the list, tiles failing) has its time too.
      await page.waitForTimeout(1500);
      return await page.evaluate(
        () => (window as unknown as { longTasks: { start: number; duration: number }[] }).longTasks,
      );
    } finally {
      await context.close();
    }
  }

  /**
   * Up to three loads, until one has no task over LONGEST_MS: a page counts as slow only if every one of three
   * loads was (the machine running the tests is shared), so a fast load ends the trial.
   */
  async function loads(path: string, ready: string): Promise<{ start: number; duration: number }[][]> {
    const runs: { start: number; duration: number }[][] = [];
    while (runs.length < 3) {
      const tasks = await longTasks(path, ready);
      runs.push(tasks);
      if (tasks.every((t) => Math.round(t.duration) <= LONGEST_MS)) break;
    }
    return runs;
  }

  it(`/reports: no task over ${LONGEST_MS} ms while its map loads (4× slower CPU)`, async () => {
    const runs = await loads("/reports", ".map-in-view li");
    const longest = runs.map((tasks) => Math.max(0, ...tasks.map((t) => Math.round(t.duration))));
    console.log(`/reports long tasks at 4x: ${JSON.stringify(runs.map((r) => r.map((t) => Math.round(t.duration))))}`);
    expect(Math.min(...longest), `longest task per load: ${longest.join(", ")} ms`).toBeLessThanOrEqual(LONGEST_MS);
  });

  it(`a report's page: no task over ${LONGEST_MS} ms while its map loads (4× slower CPU)`, async () => {
    const html = await (await fetch(`${site.base}/reports`)).text();
    const path = /href="(\/reports\/[A-Z]+-\d+)"/.exec(html)?.[1];
    expect(path).toBeDefined();
    const runs = await loads(path as string, ".report-view-map .leaflet-marker-icon");
    const longest = runs.map((tasks) => Math.max(0, ...tasks.map((t) => Math.round(t.duration))));
    console.log(
      `report page long tasks at 4x: ${JSON.stringify(runs.map((r) => r.map((t) => Math.round(t.duration))))}`,
    );
    expect(Math.min(...longest), `longest task per load: ${longest.join(", ")} ms`).toBeLessThanOrEqual(LONGEST_MS);
  });
});
