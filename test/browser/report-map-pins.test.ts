import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestDatabase, testConfig } from "../helpers/app.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";

/**
 * On a phone, the reports map's pins do not sit on each other: close ones are grouped into one marker with a count
 * (Lighthouse's target-size audit failed /reports on 11 overlapping pins at phone width), a group opens by keyboard,
 * and reports that share one spot are each reachable from the group's list.
 */
/** Every marker's title and place on the map, as one text (runs in the page). */
function markersNow(): string {
  return [...document.querySelectorAll<HTMLElement>(".report-view-map .leaflet-marker-icon")]
    .map((el) => `${el.title}@${el.style.transform}`)
    .join("|");
}

describe.skipIf(!browserAvailable())("pins on the reports map", { timeout: 120_000 }, () => {
  const site = browserSite(
    async () => {
      const db = await createTestDatabase("sqlite");
      await seedDemoVillage(db.database.db, new Date());
      const config = testConfig(db.dataDir, { MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png" });
      const app = await buildApp(config, { logger: false, database: db.database });
      // Three reports on exactly the same spot, the only ones of their category.
      await db.database.db
        .updateTable("reports")
        .set({ category_code: "litter_bin" })
        .where("category_code", "=", "bus_shelter")
        .execute();
      for (const title of ["Same spot one", "Same spot two", "Same spot three"])
        await submitReport(
          app.civic,
          reportSubmission({ title, categoryCode: "bus_shelter", attributes: {}, lat: 50.98648, lng: -2.04305 }),
        );
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

  it("at 390 px no two markers are closer than 24 px, and a group opens with Enter", async () => {
    const context = await site.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    await page.waitForSelector(".report-view-map .leaflet-marker-icon");
    const centres = await page.$$eval(".report-view-map .leaflet-marker-icon", (icons) =>
      icons.map((el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2, title: el.getAttribute("title") ?? "" };
      }),
    );
    const tooClose: string[] = [];
    for (const [i, a] of centres.entries())
      for (const b of centres.slice(i + 1))
        if (Math.hypot(a.x - b.x, a.y - b.y) < 24) tooClose.push(`${a.title} / ${b.title}`);
    expect(tooClose).toEqual([]);

    const group = page.locator(".report-view-map .report-cluster").first();
    expect(await group.count()).toBe(1);
    const before = await page.evaluate(markersNow);
    await group.focus();
    await page.keyboard.press("Enter");
    // The map zooms in on the group: the markers move (and the group parts).
    await expect.poll(() => page.evaluate(markersNow), { timeout: 10_000 }).not.toBe(before);
    await context.close();
  });

  it("reports sharing one spot are each a link in the group's popup", async () => {
    const context = await site.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports?category=bus_shelter`, { waitUntil: "load" });
    const group = page.locator(".report-view-map .report-cluster");
    await group.waitFor();
    expect(await group.getAttribute("title")).toBe("3 reports here");
    await group.focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector(".report-cluster-list a");
    const titles = await page.$$eval(".report-cluster-list a", (links) => links.map((a) => a.textContent));
    expect(titles.sort()).toEqual(["Same spot one", "Same spot three", "Same spot two"]);
    await context.close();
  });
});
