import { describe, expect, it } from "vitest";
import { sendQuestionnaires } from "../../src/reports/questionnaire.js";
import { submitReport } from "../../src/reports/submit.js";
import { accountsHarness } from "../accounts/support.js";
import { axeViolations, browserAvailable, browserSite, formatViolations } from "../helpers/browser.js";

const DAY = 24 * 60 * 60_000;

/**
 * "Is it fixed?" in real Chromium without JavaScript, at 320 px, by keyboard: the page the mail's "No, still a
 * problem" link opens, its way to the other answer, its one button, the thank-you page and the used link's page;
 * every page passes axe (WCAG 2.1 AA) and nothing is wider than the screen.
 */
describe.skipIf(!browserAvailable())("Is it fixed? pages in Chromium without JavaScript", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));

  it("answers by keyboard, and every page passes axe at 320 px", async () => {
    const h = site.harness;
    const report = await submitReport(h.app.civic, {
      categoryCode: "pothole",
      title: "Pothole outside the chapel",
      description: "Deep hole by the gate.",
      lat: 50.9866,
      lng: -2.0441,
      locationText: "By the chapel gate",
      placeId: null,
      addressId: null,
      attributes: { road_or_pavement: ["road"] },
      photos: [],
      mediaUrl: null,
      reporter: { email: "browser.reporter@example.org", name: null, phone: null, shareContact: false },
      deviceId: null,
      accountId: null,
      source: "web",
      apiKeyId: null,
    });
    h.advance(29 * DAY);
    expect(await sendQuestionnaires(h.app.civic)).toBeGreaterThanOrEqual(1);
    const text = (await h.mailTo("browser.reporter@example.org")).parsed.text ?? "";
    const no = /https?:\/\/\S+(\/reports\/fixed\/no\/[A-Za-z0-9_-]{43})/.exec(text)![1]!;

    const context = await site.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 800 } });
    const page = await context.newPage();
    const check = async (label: string) => {
      const violations = await axeViolations(page, { javaScript: false });
      expect(violations, formatViolations(label, violations)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), label).toBeLessThanOrEqual(320);
    };

    await page.goto(`${site.base}${no}`);
    expect(await page.textContent("main")).toContain(report.reference);
    expect(await page.textContent("main")).toContain("By the chapel gate");
    await check("No, still a problem");
    // The other answer is one link away, and comes back.
    await page.click("text=Answer “Yes, fixed” instead");
    await page.waitForURL(/\/reports\/fixed\/yes\//);
    await check("Yes, fixed");
    await page.click("text=Answer “No, still a problem” instead");
    await page.waitForURL(/\/reports\/fixed\/no\//);

    await page.focus("#questionnaire-comment");
    await page.keyboard.type("Still a deep hole this morning.");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("No, still a problem");
    await page.keyboard.press("Enter");
    await page.waitForSelector("text=Thank you for your answer");
    await check("thank you");

    await page.click(`a[href="/reports/${report.reference}"]`);
    await page.waitForSelector("text=The reporter says this is still a problem. Still a deep hole this morning.");

    await page.goto(`${site.base}${no}`);
    expect(await page.textContent("main")).toContain("used already");
    await check("used link");
    await context.close();
  });
});
