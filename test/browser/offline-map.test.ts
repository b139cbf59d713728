import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import {
  axeViolations,
  browserAvailable,
  browserSite,
  formatViolations,
  watchPageProblems,
} from "../helpers/browser.js";

/**
 * The village map offline (issue 35): the installed app keeps the village's tiles at the report form's zooms, from
 * this site's tile proxy, which fetched them from the tile server (a local one here) once; offline, the report form
 * shows the map from the device and a pin can be put on it; the report saved as a draft arrives with its place.
 */
describe.skipIf(!browserAvailable())("the village map offline in Chromium", { timeout: 180_000 }, () => {
  let tiles: Server;
  const asked: string[] = [];
  const site = browserSite(
    async () => {
      const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#dfe8d8" } })
        .png()
        .toBuffer();
      tiles = createServer((req, res) => {
        asked.push(req.url ?? "");
        res.writeHead(200, { "content-type": "image/png" });
        res.end(png);
      });
      await new Promise<void>((resolve) => tiles.listen(0, "127.0.0.1", resolve));
      const t = await createTestApp("sqlite", {
        seed: true,
        env: {
          MAP_TILE_URL: `http://127.0.0.1:${(tiles.address() as AddressInfo).port}/{z}/{x}/{y}.png`,
          MAP_TILE_FETCHES_PER_MINUTE: "5000",
        },
      });
      return {
        ...t,
        async close() {
          await t.close();
          await new Promise((resolve) => tiles.close(resolve));
        },
      };
    },
    { host: "127.0.0.1" },
  );

  it("keeps no tiles for a browser tab that is not the installed app", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=pothole`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    await page.reload();
    await page.locator("#report-map .leaflet-tile-loaded").first().waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await page.evaluate(async () => (await caches.keys()).filter((n) => n.startsWith("civic-tiles-")))).toEqual(
      [],
    );
    await context.close();
  });

  it("keeps the village's tiles on the device; offline, a report is put on the map and arrives with its place", async () => {
    const plan = (await (await fetch(`${site.base}/tiles/offline.json`)).json()) as { version: string; count: number };
    expect(plan.count).toBe(310);

    const context = await site.browser.newContext();
    let online = true;
    const fromBrowser: string[] = [];
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      fromBrowser.push(url.host);
      return online ? route.fallback() : route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    // Opened as the installed app (which headless Chromium cannot be, nor emulate): the pages ask the worker to
    // keep the map.
    await context.addInitScript(() => {
      const real = window.matchMedia.bind(window);
      window.matchMedia = (query: string) =>
        /display-mode:\s*standalone/.test(query) ? ({ matches: true, media: query } as MediaQueryList) : real(query);
    });
    await page.goto(`${site.base}/report?category=pothole`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    // The first page was loaded before the worker was there; the next one asks it.
    await page.reload();

    // Every tile of the plan is kept, in a cache of its own named by the plan's version.
    const keptCount = () =>
      page.evaluate(
        async (version) => (await (await caches.open(`civic-tiles-${version}`)).keys()).length,
        plan.version,
      );
    await expect.poll(keptCount, { timeout: 90_000, interval: 500 }).toBe(310);
    const kept = await page.evaluate(async (version) => {
      const cache = await caches.open(`civic-tiles-${version}`);
      return (await cache.keys()).map((r) => new URL(r.url).pathname);
    }, plan.version);
    expect(kept).toHaveLength(310);
    expect(kept.every((p) => /^\/tiles\/1[3-7]\/\d+\/\d+\.png$/.test(p))).toBe(true);
    // The tile server was asked by this site only, each tile once; the browser asked nobody but this site.
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.length).toBeGreaterThanOrEqual(310);
    expect(asked.length).toBeLessThan(400);
    expect(new Set(fromBrowser)).toEqual(new Set([new URL(site.base).host]));

    online = false;
    await context.setOffline(true);
    const askedBefore = asked.length;
    await page.goto(`${site.base}/report?category=pothole`);
    const map = page.locator("#report-map");
    await expect.poll(() => map.locator(".leaflet-tile-loaded").count(), { timeout: 20_000 }).toBeGreaterThan(3);
    expect(await map.getAttribute("class")).not.toContain("tiles-failed");
    const violations = await axeViolations(page);
    expect(formatViolations("report form offline", violations)).toBe("");

    await map.click({ position: { x: 200, y: 150 } });
    await expect.poll(() => page.inputValue("#lat")).not.toBe("");
    const lat = Number(await page.inputValue("#lat"));
    const lng = Number(await page.inputValue("#lng"));
    expect(lat).toBeGreaterThan(50.975);
    expect(lat).toBeLessThan(50.9974);
    expect(lng).toBeGreaterThan(-2.0651);
    expect(lng).toBeLessThan(-2.0223);
    expect(await page.locator("#map-status").textContent()).toContain("Pin placed");

    const title = "Offline pothole put on the map";
    await page.getByLabel("In the road").check();
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Description").fill("Found while out of signal; the pin is where it is.");
    await page.getByRole("textbox", { name: /Email address/ }).fill("offline.map@example.org");
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/drafts\?saved=/);
    await page.locator("li.draft").waitFor();
    expect(asked.length).toBe(askedBefore);

    online = true;
    await context.setOffline(false);
    await page.locator("#draft-notice .reference").waitFor({ timeout: 30_000 });
    const stored = await site.harness.db.database.db
      .selectFrom("reports")
      .select(["latitude", "longitude"])
      .where("title", "=", title)
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.latitude).toBeCloseTo(lat, 5);
    expect(stored[0]!.longitude).toBeCloseTo(lng, 5);
    expect(problems).toEqual([]);
    await context.close();
  });
});
