import { describe, expect, it } from "vitest";
import { accountsHarness } from "../accounts/support.js";
import { axeViolations, browserAvailable, browserSite, formatViolations } from "../helpers/browser.js";

/**
 * "Email me about new reports" in real Chromium without JavaScript, by keyboard: a mistake first (an unknown place:
 * the form comes back with the error, what was chosen kept), then a good request, its confirmation page and its
 * button; every page passes axe (WCAG 2.1 AA), at 320 px wide too.
 */
describe.skipIf(!browserAvailable())("alerts in Chromium without JavaScript", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));

  it("asks for an alert by keyboard, confirms it by the button, and every page passes axe", async () => {
    const context = await site.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 800 } });
    const page = await context.newPage();
    const axe = async (label: string) => {
      const violations = await axeViolations(page, { javaScript: false });
      expect(violations, formatViolations(label, violations)).toEqual([]);
    };

    await page.goto(`${site.base}/reports`);
    await page.click('a[href="/alerts"]');
    await page.waitForURL(/\/alerts$/);
    await axe("/alerts");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    await page.check("#alert-scope-near");
    await page.focus("#alert-place");
    await page.keyboard.type("Chruch lnae");
    await page.selectOption("#alert-radius", "200");
    await page.check("#alert-frequency-daily");
    await page.fill("#alert-email", "browser.alert@example.org");
    site.harness.advance(4_000);
    await page.focus("button[type=submit]:has-text('Email me about new reports')");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".error-summary");
    expect(await page.textContent("#alert-place-error")).toContain("Church Lane");
    expect(await page.inputValue("#alert-place")).toBe("Chruch lnae");
    expect(await page.isChecked("#alert-frequency-daily")).toBe(true);
    await axe("/alerts with an error");

    await page.fill("#alert-place", "Church Lane");
    site.harness.advance(4_000);
    await page.click("button[type=submit]:has-text('Email me about new reports')");
    await page.waitForSelector("text=Check your email");
    await axe("check your email");

    const mail = await site.harness.mailTo("browser.alert@example.org");
    const link = /https?:\/\/\S+(\/alerts\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "")![1]!;
    await page.goto(`${site.base}${link}`);
    expect(await page.textContent("main")).toContain("Within 200 m of Church Lane");
    await axe("confirm page");
    await page.click("button:has-text('Confirm')");
    await page.waitForSelector("text=Your alert is on");
    await axe("alert on");
    await context.close();
  });
});
