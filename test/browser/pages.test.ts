import { describe, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { createTestApp } from "../helpers/app.js";
import { axeViolations, browserAvailable, formatViolations, browserSite } from "../helpers/browser.js";

/**
 * Every page of the site map (plus the search and place answers and the error pages) in real Chromium without
 * JavaScript on a 320 px phone: WCAG 2.0/2.1 A and AA rules via axe-core; the phone's header menu; and the keyboard
 * reaches the skip link first. The same pages with JavaScript at 1280 px (axe, CSP violations, script errors),
 * sideways scroll at 320, 390 and 1280 px, and the signed-in, staff, form-error and success states are the browser
 * sweep's (sweep.ts), which loads every page once per width anyway.
 */
describe.skipIf(!browserAvailable())("every page in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite(
    () =>
      createTestApp("sqlite", {
        seed: true,
        // A closed loopback port: the map must cope with tiles that do not load, and nothing leaves the machine.
        env: { MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png" },
        routes: (app) =>
          app.get("/test-server-error", async () => {
            throw new Error("boom");
          }),
      }),
    { host: "127.0.0.1" },
  );

  const extraPages = [
    "/this-page-does-not-exist",
    "/test-server-error",
    "/reports?near=Church+Lane",
    "/reports?near=Chruch",
    "/reports?q=pothole",
    "/reports?q=zzzzqq",
    "/businesses?q=pubs",
    "/search?q=cafe",
  ];

  it("passes axe on every page without JavaScript on a phone", async () => {
    const paths = [
      ...sitePages(FEATURES)
        .map((p) => p.path)
        .filter((path) => site.app.hasRoute({ method: "GET", url: path })),
      ...extraPages,
    ];
    const projectLink = /href="(\/projects\/[a-z0-9-]+)"/.exec((await site.app.inject("/projects")).body)?.[1];
    if (projectLink) paths.push(projectLink);
    expect(paths.length).toBeGreaterThanOrEqual(10);
    const failures: string[] = [];
    const context = await site.browser.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 640 } });
    const page = await context.newPage();
    for (const path of paths) {
      await page.goto(`${site.base}${path}`, { waitUntil: "load" });
      const violations = await axeViolations(page, { javaScript: false });
      if (violations.length > 0) failures.push(formatViolations(`${path} (without JavaScript, 320 px)`, violations));
    }
    await context.close();
    expect(failures.join("\n\n")).toBe("");
  }, 300_000);

  it("on a phone the header folds its links behind a Menu button that works without JavaScript", async () => {
    for (const javaScriptEnabled of [false, true]) {
      const context = await site.browser.newContext({ javaScriptEnabled, viewport: { width: 320, height: 640 } });
      const page = await context.newPage();
      await page.goto(`${site.base}/about`, { waitUntil: "load" });
      const header = (await page.locator("header.site-header").boundingBox())!;
      // It was 275 px with every link unfolded (issue 34).
      expect(header.height).toBeLessThanOrEqual(140);
      const reports = page.getByRole("link", { name: "Reports", exact: true });
      expect(await reports.isVisible()).toBe(false);
      await page.getByText("Menu", { exact: true }).click();
      expect(await reports.isVisible()).toBe(true);
      await reports.click();
      await page.waitForURL(`${site.base}/reports`);
      await context.close();
    }
    const wide = await site.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await wide.newPage();
    await page.goto(`${site.base}/about`, { waitUntil: "load" });
    expect(await page.getByText("Menu", { exact: true }).isVisible()).toBe(false);
    expect(await page.getByRole("link", { name: "Reports", exact: true }).isVisible()).toBe(true);
    await wide.close();
  }, 120_000);

  it("lets keyboard users skip straight to the content", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/about`);
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
    expect(focused).toBe("Skip to main content");
    expect(await page.isVisible(".skip-link")).toBe(true);
    await page.keyboard.press("Enter");
    expect(page.url()).toMatch(/#main$/);
    const focusedId = await page.evaluate(() => document.activeElement?.id);
    expect(focusedId).toBe("main");
    await context.close();
  });
});
