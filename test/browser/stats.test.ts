import { describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import { axeChecker, browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/** The statistics pages with real figures in Chromium: axe (WCAG 2.1 AA) on the charts and tables, no CSP problems. */
describe.skipIf(!browserAvailable())("statistics pages in Chromium", () => {
  const site = browserSite(
    async () => {
      const t = await createTestApp("sqlite", { seed: true });
      for (const [url, ua, referer] of [
        ["/", "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "https://news.example.co.uk/a"],
        ["/reports", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", ""],
      ] as const) {
        await t.app.inject({ url, headers: { "user-agent": ua, ...(referer ? { referer } : {}) } });
      }
      await t.app.analytics.flush();
      return t;
    },
    { host: "127.0.0.1" },
  );

  it("passes axe on /stats and /admin/stats", async () => {
    const staff = await signInAs(site.app, "admin@example.org", "admin");
    const { context, page, problems, failures, check } = await site.checkedPage(staff.cookie);
    for (const path of ["/stats", "/admin/stats"]) {
      const res = await page.goto(`${site.base}${path}`, { waitUntil: "load" });
      expect(res?.status(), path).toBe(200);
      expect(await page.locator("figure.chart svg").count(), path).toBeGreaterThanOrEqual(3);
      await check(path);
    }
    await context.close();
    expect(problems).toEqual([]);
    expect(failures.join("\n\n")).toBe("");
  }, 120_000);

  it("shows how long things take as data tables that pass axe on a 320-pixel phone, with and without JavaScript", async () => {
    for (const javaScriptEnabled of [true, false]) {
      for (const width of [320, 1280]) {
        const label = `/stats at ${width} px${javaScriptEnabled ? "" : " without JavaScript"}`;
        const context = await site.newContext({ viewport: { width, height: 800 }, javaScriptEnabled });
        const page = await context.newPage();
        const { failures, check } = axeChecker(page, { javaScript: javaScriptEnabled });
        await page.goto(`${site.base}/stats`, { waitUntil: "load" });
        for (const caption of ["How long things take, by category", "How long things take, by department"]) {
          const table = page.locator("table", { has: page.locator("caption", { hasText: caption }) });
          expect(await table.count(), `${label}: ${caption}`).toBe(1);
          expect(await table.locator('thead th[scope="col"]').count(), `${label}: ${caption}`).toBe(5);
          // The demo village's reports have answers and fixes: real figures, not only dashes.
          expect(await table.locator('tbody th[scope="row"]').count(), `${label}: ${caption}`).toBeGreaterThan(1);
          expect(await table.locator("tbody td", { hasText: /\d+(\.\d)? days?$/ }).count()).toBeGreaterThan(0);
          await expect.poll(() => table.isVisible()).toBe(true);
        }
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(sideways, `${label} scrolls sideways`).toBeLessThanOrEqual(0);
        if (width === 320) {
          // Each row becomes a block with each figure under its column's name.
          const named = await page.$eval(
            'table.times-table td[data-label="Median time to fixed"]',
            (td) => getComputedStyle(td, "::before").content,
          );
          expect(named).toContain("Median time to fixed");
        }
        await check(label);
        await context.close();
        expect(failures.join("\n\n")).toBe("");
      }
    }
  }, 120_000);

  it("charts stay readable on a 320-pixel phone: labels at least 10 px high, whole, and as wide as the screen", async () => {
    const staff = await signInAs(site.app, "admin@example.org", "admin");
    for (const width of [320, 390, 1280]) {
      const context = await site.newContext({ viewport: { width, height: 800 }, cookie: staff.cookie });
      const page = await context.newPage();
      for (const path of ["/stats", "/admin/stats"]) {
        await page.goto(`${site.base}${path}`, { waitUntil: "load" });
        const texts = await page.$$eval("figure.chart svg text", (nodes) =>
          nodes.map((n) => ({ text: n.textContent ?? "", height: n.getBoundingClientRect().height })),
        );
        expect(texts.length, path).toBeGreaterThan(0);
        const small = texts.filter((t) => t.text.trim() !== "" && t.height < 10);
        expect(small, `${path} at ${width} px`).toEqual([]);
        expect(
          texts.filter((t) => t.text.includes("…")),
          `${path} at ${width} px`,
        ).toEqual([]);
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(sideways, `${path} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
      }
      await context.close();
    }
  }, 120_000);
});
