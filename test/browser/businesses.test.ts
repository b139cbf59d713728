import { describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import {
  axeViolations,
  browserAvailable,
  formatViolations,
  watchPageProblems,
  browserSite,
} from "../helpers/browser.js";

/**
 * The business directory in real Chromium: axe WCAG 2.1 AA on the list (plain and filtered) and a business page
 * with its Leaflet map, no CSP violations (the JSON-LD block is data, not script), search works from the form.
 * Tiles point at a closed loopback port and every non-loopback request is aborted: the test never leaves the machine.
 */
describe.skipIf(!browserAvailable())("business directory in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite(
    () =>
      createTestApp("sqlite", {
        seed: true,
        env: { MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png" },
      }),
    { host: "127.0.0.1" },
  );

  async function openContext(javaScriptEnabled: boolean) {
    // newContext keeps every request on loopback.
    return site.browser.newContext({ javaScriptEnabled });
  }

  it("passes axe on the directory and a business page, with and without JavaScript", async () => {
    const paths = [
      "/businesses",
      "/businesses?schemaType=FoodEstablishment&q=bakery",
      `/businesses?q=${"a".repeat(201)}`,
      "/businesses/the-old-bakery",
      "/businesses/pharmacy-that-does-not-exist",
    ];
    const failures: string[] = [];
    for (const javaScriptEnabled of [true, false]) {
      const context = await openContext(javaScriptEnabled);
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      for (const path of paths) {
        await page.goto(`${site.base}${path}`, { waitUntil: "load" });
        if (javaScriptEnabled && path === "/businesses/the-old-bakery") {
          await page.waitForSelector("#business-map .leaflet-interactive");
        }
        // Axe runs in both modes: without JavaScript the page is what a visitor without scripts gets.
        const violations = await axeViolations(page, { javaScript: javaScriptEnabled });
        const mode = javaScriptEnabled ? "with JavaScript" : "without JavaScript";
        if (violations.length > 0) failures.push(formatViolations(`${path} (${mode})`, violations));
      }
      await context.close();
      expect(problems, "CSP violations or script errors").toEqual([]);
    }
    expect(failures.join("\n\n")).toBe("");
  });

  it("searches from the form and shows the map with the address in text", async () => {
    const context = await openContext(true);
    const page = await context.newPage();
    await page.goto(`${site.base}/businesses`);
    await page.getByRole("searchbox", { name: "Search" }).fill("pâtisserie");
    await page.getByLabel("Type of business").selectOption("FoodEstablishment");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/q=p%C3%A2tisserie/);
    expect(await page.locator(".directory-results h3 a").allTextContents()).toEqual(["Pâtisserie Noëlle"]);
    await page.locator(".directory-results h3 a").click();
    await page.waitForURL(/\/businesses\/patisserie-noelle$/);
    expect(await page.isVisible("#business-map")).toBe(true);
    expect(await page.locator("address").textContent()).toContain("6 Chapel Street");
    const jsonLd = await page.locator('script[type="application/ld+json"]').textContent();
    expect(JSON.parse(jsonLd ?? "{}")["@type"]).toBe("Bakery");
    await context.close();
  });
});
