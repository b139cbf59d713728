import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestDatabase, testConfig } from "../helpers/app.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";

/** Names and titles that look like HTML must show as text on the maps, never be parsed as markup. */
const HOSTILE = `Bakery <b id="injected">bold</b> <img id="injected-img" src="/x">&amp;`;

describe.skipIf(!browserAvailable())("text on maps in Chromium", { timeout: 120_000 }, () => {
  let reference = "";
  const site = browserSite(
    async () => {
      const db = await createTestDatabase("sqlite");
      await seedDemoVillage(db.database.db, new Date());
      await db.database.db
        .updateTable("businesses")
        .set({ name: HOSTILE })
        .where("id", "=", "the-old-bakery")
        .execute();
      const config = testConfig(db.dataDir, { MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png" });
      const app = await buildApp(config, { logger: false, database: db.database });
      // The only report of its category, so that its pin stands alone (close pins are grouped on the map).
      await db.database.db
        .updateTable("reports")
        .set({ category_code: "litter_bin" })
        .where("category_code", "=", "bus_shelter")
        .execute();
      ({ reference } = await submitReport(
        app.civic,
        reportSubmission({ title: "Pothole on the corner", categoryCode: "bus_shelter", attributes: {} }),
      ));
      // Submissions refuse tags in titles; a title from elsewhere (an import, an older version) may still hold some.
      await db.database.db.updateTable("reports").set({ title: HOSTILE }).where("reference", "=", reference).execute();
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

  it("a business name in the map tooltip is text", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/businesses/the-old-bakery`, { waitUntil: "load" });
    await page.hover("#business-map .leaflet-interactive");
    const tooltip = page.locator(".leaflet-tooltip");
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toBe(HOSTILE);
    expect(await page.locator("#injected, #injected-img").count()).toBe(0);
    await context.close();
  });

  it("a report title in the map popup on the reports list is text", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/reports?category=bus_shelter`, { waitUntil: "load" });
    await page.waitForSelector(".report-view-map .leaflet-marker-icon");
    const clicked = await page.evaluate((title) => {
      const icon = [...document.querySelectorAll<HTMLElement>(".report-view-map .leaflet-marker-icon")].find(
        (el) => el.title === title,
      );
      icon?.click();
      return Boolean(icon);
    }, HOSTILE);
    expect(clicked).toBe(true);
    const popup = page.locator(".leaflet-popup-content a");
    await popup.waitFor();
    expect(await popup.textContent()).toBe(HOSTILE);
    expect(await popup.getAttribute("href")).toContain(reference);
    expect(await page.locator("#injected, #injected-img").count()).toBe(0);
    await context.close();
  });
});
