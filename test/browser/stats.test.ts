import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  browserAvailable,
  launchBrowser,
  type TestBrowser,
  watchPageProblems,
  addSessionCookie,
  axeChecker,
} from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/** The statistics pages with real figures in Chromium: axe (WCAG 2.1 AA) on the charts and tables, no CSP problems. */
describe.skipIf(!browserAvailable())("statistics pages in Chromium", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp("sqlite", { seed: true });
    for (const [url, ua, referer] of [
      ["/", "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "https://news.example.co.uk/a"],
      ["/reports", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", ""],
    ] as const) {
      await t.app.inject({ url, headers: { "user-agent": ua, ...(referer ? { referer } : {}) } });
    }
    await t.app.analytics.flush();
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("passes axe on /stats and /admin/stats", async () => {
    const staff = await signInAs(t.app, "admin@example.org", "admin");
    const context = await browser.newContext();
    await addSessionCookie(context, base, staff.cookie);
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    const { failures, check } = axeChecker(page);
    for (const path of ["/stats", "/admin/stats"]) {
      const res = await page.goto(`${base}${path}`, { waitUntil: "load" });
      expect(res?.status(), path).toBe(200);
      expect(await page.locator("figure.chart svg").count(), path).toBeGreaterThanOrEqual(3);
      await check(path);
    }
    await context.close();
    expect(problems).toEqual([]);
    expect(failures.join("\n\n")).toBe("");
  }, 120_000);
});
