import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestDatabase, testConfig } from "../helpers/app.js";
import { axeViolations, browserAvailable, browserSite, formatViolations } from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";

/** Sums the page's layout shifts (not those right after input), from the start of the load (runs in the page). */
function watchLayoutShifts(): void {
  const w = window as unknown as { shifted: number };
  w.shifted = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
      if (!entry.hadRecentInput) w.shifted += entry.value;
    }
  }).observe({ type: "layout-shift", buffered: true });
}

/** The shape class and the accessible name of every report marker on the map (runs in the page). */
function reportMarkers(): { shape: string; label: string }[] {
  return [...document.querySelectorAll<HTMLElement>(".reports-map .report-pin.leaflet-marker-icon")].map((el) => ({
    shape: [...el.classList].find((c) => c.startsWith("report-pin-")) ?? "",
    label: el.getAttribute("aria-label") ?? "",
  }));
}

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

/**
 * Presses Enter on the focused zoom button of the reports map and waits for the zoom to end: the map asks for its
 * reports at the new zoom on "moveend" (its zoom control takes no press while it moves). A disabled button (the end
 * of the map's zooms) moves nothing, so nothing is waited for.
 */
async function pressZoom(page: Page): Promise<void> {
  const disabled = await page.evaluate(() => document.activeElement?.classList.contains("leaflet-disabled") ?? false);
  const asked = (url: string) => new URL(url).searchParams.get("zoom");
  const from = await page.evaluate(() => {
    const entries = performance.getEntriesByType("resource").map((e) => e.name);
    return entries.reverse().find((u) => /[?&]bbox=.*[?&]zoom=\d+/.test(u)) ?? null;
  });
  const zoomBefore = from ? asked(from) : null;
  const moved = disabled
    ? Promise.resolve()
    : page.waitForRequest((r) => {
        const zoom = asked(r.url());
        return zoom !== null && new URL(r.url()).searchParams.has("bbox") && zoom !== zoomBefore;
      });
  await page.keyboard.press("Enter");
  await moved;
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

  it("shows every matching report, not only the page's, with the number in view said politely and listed", async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    const summary = page.locator(".map-summary");
    await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toMatch(/^\d+ reports? in view\./);
    expect(await summary.getAttribute("aria-live")).toBe("polite");
    const inView = Number(/^(\d+)/.exec((await summary.textContent()) ?? "")?.[1]);
    // More than the page's 20: the map is of every report matching the filters.
    expect(inView).toBeGreaterThan(20);
    const listed = page.locator(".map-in-view a");
    expect(await listed.count()).toBe(Math.min(inView, 100));
    // The list in view is reached by keyboard, and its links lead to the reports.
    await listed.first().focus();
    expect(await page.evaluate(() => document.activeElement?.closest(".map-in-view") !== null)).toBe(true);
    expect(await listed.first().getAttribute("href")).toMatch(/^\/reports\/[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    // Zooming in (the map's zoom button, by keyboard) shows fewer reports, and says so.
    await page.focus(".reports-map .leaflet-control-zoom-in");
    for (let i = 0; i < 4; i++) await pressZoom(page);
    await expect.poll(() => summary.textContent(), { timeout: 10_000 }).not.toBe(`${inView} reports in view.`);
    const violations = await axeViolations(page);
    expect(formatViolations("/reports with its map", violations)).toBe("");
    await context.close();
  });

  it("tells statuses apart by shape and label, and hides fixed and closed reports when asked", async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    await page.waitForSelector(".reports-map .report-pin.leaflet-marker-icon");
    const shapes: Record<string, RegExp> = {
      "report-pin-open": /\((Open|Investigating)\)$/,
      "report-pin-progress": /\((In progress|Action scheduled)\)$/,
      "report-pin-fixed": /\(Fixed\)$/,
      "report-pin-closed": /\((Closed|Duplicate|Not the council's responsibility)\)$/,
    };
    const markers = await page.evaluate(reportMarkers);
    expect(markers.length).toBeGreaterThan(0);
    for (const m of markers) expect(m.label, m.shape).toMatch(shapes[m.shape] ?? /^never$/);
    // Each shape is explained in words beside the map.
    expect(await page.textContent(".map-legend")).toMatch(/Open.*In progress.*Fixed.*Closed/s);

    await page.getByLabel("Hide fixed and closed reports").check();
    await page.getByRole("button", { name: "Show reports" }).click();
    await page.waitForURL(/hide_closed=true/);
    await page.waitForSelector(".reports-map .leaflet-marker-icon");
    await expect.poll(() => page.textContent(".map-summary"), { timeout: 10_000 }).toMatch(/in view/);
    const left = await page.evaluate(reportMarkers);
    expect(left.filter((m) => m.shape === "report-pin-fixed" || m.shape === "report-pin-closed")).toEqual([]);
    expect(await page.textContent(".map-in-view")).not.toMatch(/\((Fixed|Closed)\)/);
    await context.close();
  });

  it("never zooms out past the zooms this site has tiles for", async () => {
    const context = await site.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const zooms = new Set<number>();
    page.on("request", (r) => {
      const m = /\/tiles\/(\d+)\//.exec(new URL(r.url()).pathname);
      if (m) zooms.add(Number(m[1]));
    });
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    expect(await page.getAttribute(".reports-map-canvas", "data-tile-zooms")).toBe("12-19");
    // The map has its first view (and has asked for its reports there) before the zooming starts.
    await expect.poll(() => page.textContent(".map-summary"), { timeout: 10_000 }).toMatch(/in view/);
    await page.focus(".reports-map .leaflet-control-zoom-out");
    for (let i = 0; i < 8; i++) await pressZoom(page);
    // At the end of its zooms the button is disabled: the map went as far out as it can.
    expect(await page.getAttribute(".reports-map .leaflet-control-zoom-out", "class")).toContain("leaflet-disabled");
    expect(zooms.size).toBeGreaterThan(0);
    expect(Math.min(...zooms)).toBeGreaterThanOrEqual(12);
    await context.close();
  });

  it("a pin opens by keyboard to its report's link", async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    const pin = page.locator(".reports-map .report-pin.leaflet-marker-icon").first();
    await pin.waitFor();
    await pin.focus();
    await page.keyboard.press("Enter");
    const link = page.locator(".leaflet-popup-content a");
    await link.waitFor();
    expect(await link.getAttribute("href")).toMatch(/^\/reports\//);
    await context.close();
  });

  for (const width of [390, 1280]) {
    it(`draws the map without moving the page (layout shift <= 0.01 at ${width} px)`, async () => {
      const context = await site.browser.newContext({ viewport: { width, height: 844 } });
      await context.addInitScript(watchLayoutShifts);
      const page = await context.newPage();
      for (const path of ["/reports", "/reports?category=bus_shelter"]) {
        await page.goto(`${site.base}${path}`, { waitUntil: "load" });
        await page.waitForSelector(".reports-map .leaflet-marker-icon");
        await expect.poll(() => page.textContent(".map-summary"), { timeout: 10_000 }).toMatch(/in view/);
        await page.waitForTimeout(500);
        const shifted = await page.evaluate(() => (window as unknown as { shifted: number }).shifted);
        expect(shifted, path).toBeLessThanOrEqual(0.01);
      }
      // On a phone the map comes before the filters form.
      const order = await page.evaluate(() => {
        const map = document.querySelector(".reports-map");
        const form = document.querySelector("form.filters");
        return map && form ? map.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
      });
      expect(order).toBeTruthy();
      await context.close();
    });
  }

  it("a report's page keeps its map's space too", async () => {
    const context = await site.browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addInitScript(watchLayoutShifts);
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    const href = await page.locator(".report-list a").first().getAttribute("href");
    await page.goto(`${site.base}${href}`, { waitUntil: "load" });
    await page.waitForSelector(".report-view-map .report-pin");
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { shifted: number }).shifted)).toBeLessThanOrEqual(0.01);
    await context.close();
  });

  it("'Report a problem here' starts a report at the centre of the map", async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    await expect.poll(() => page.textContent(".map-summary"), { timeout: 10_000 }).toMatch(/in view/);
    const centre = await page.evaluate(() => {
      const link = document.querySelector<HTMLAnchorElement>(".report-here");
      const url = new URL(link?.href ?? "", location.href);
      return { lat: Number(url.searchParams.get("lat")), lng: Number(url.searchParams.get("lng")) };
    });
    expect(centre.lat).toBeGreaterThan(50.975);
    expect(centre.lat).toBeLessThan(50.9974);
    expect(centre.lng).toBeGreaterThan(-2.0651);
    expect(centre.lng).toBeLessThan(-2.0223);
    await page.getByRole("link", { name: "Report a problem here" }).click();
    await page.waitForURL(/\/report\?lat=/);
    await page.getByLabel(/^Pothole/).check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(/category=pothole/);
    expect(Number(await page.inputValue("#lat"))).toBeCloseTo(centre.lat, 5);
    expect(Number(await page.inputValue("#lng"))).toBeCloseTo(centre.lng, 5);
    await context.close();
  });

  it("without JavaScript there is no empty map box: the paged list and the filters, hide-fixed checkbox included", async () => {
    const context = await site.browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${site.base}/reports`, { waitUntil: "load" });
    expect(await page.isVisible(".reports-map")).toBe(false);
    expect(await page.locator(".report-list li").count()).toBe(20);
    await page.getByLabel("Hide fixed and closed reports").check();
    await page.getByRole("button", { name: "Show reports" }).click();
    await page.waitForURL(/hide_closed=true/);
    expect(await page.textContent(".report-list")).not.toMatch(/\b(Fixed|Closed)\b/);
    await context.close();
  });
});
