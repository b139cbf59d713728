import { describe, expect, it } from "vitest";
import { accountsHarness, makeReport } from "../accounts/support.js";
import { axeViolations, browserAvailable, browserSite, formatViolations } from "../helpers/browser.js";
import { jpegWithGps } from "../helpers/images.js";
import { hasJava, nuErrors } from "../helpers/nu.js";

/**
 * "Add an update" on a report page (issue 36) in real Chromium without JavaScript, by keyboard, 320 px wide: the
 * error states first (no text, no address: the form comes back with both errors and what was typed), then a good
 * update with a photo, the emailed link's page and its button, and the update with its photo in the report's
 * history. Every page passes axe.
 */
describe.skipIf(!browserAvailable())("resident updates in Chromium without JavaScript", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));

  it("sends an update by keyboard, fixes its errors, publishes it by the link's button; every page passes axe", async () => {
    const { reference } = await makeReport(site.harness.app, { email: null });
    const context = await site.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 800 } });
    const page = await context.newPage();
    const axe = async (label: string) => {
      const violations = await axeViolations(page, { javaScript: false });
      expect(violations, formatViolations(label, violations)).toEqual([]);
    };
    // The served HTML of each state, for the Nu HTML Checker at the end.
    const served = new Map<string, string>();
    page.on("response", (res) => {
      if (res.request().resourceType() === "document") {
        void res.text().then(
          (html) => served.set(`${res.request().method()} ${res.url()}`, html),
          () => undefined,
        );
      }
    });
    const narrow = async () =>
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    await page.goto(`${site.base}/reports/${reference}`);
    await axe("report page with the update form");
    await narrow();

    // Errors: an empty text and an address that is not one.
    await page.focus("#update-email");
    await page.keyboard.type("not an address");
    site.harness.advance(4_000);
    await page.focus("button[type=submit]:has-text('Send the update')");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".error-summary");
    expect(await page.title()).toMatch(/^Error: /);
    expect(await page.textContent("#update-note-error")).toContain("Enter the text of your update");
    expect(await page.textContent("#update-email-error")).toContain("Enter an email address");
    expect(await page.inputValue("#update-email")).toBe("not an address");
    await axe("update form with errors");
    await narrow();

    // The error summary's links lead to the fields, by keyboard.
    await page.focus(".error-summary a[href='#update-note']");
    await page.keyboard.press("Enter");
    await page.focus("#update-note");
    await page.keyboard.type("The hole has a cone in it now, but it is still deep.");
    await page.fill("#update-email", "browser.walker@example.org");
    await page.setInputFiles("#update-photo", {
      name: "cone.jpg",
      mimeType: "image/jpeg",
      buffer: await jpegWithGps(),
    });
    site.harness.advance(4_000);
    await page.focus("button[type=submit]:has-text('Send the update')");
    await page.keyboard.press("Enter");
    await page.waitForSelector("text=Check your email");
    await axe("check your email");

    const mail = await site.harness.mailTo("browser.walker@example.org");
    const link = /https?:\/\/\S+(\/reports\/updates\/publish\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "")![1]!;
    await page.goto(`${site.base}${link}`);
    expect(await page.textContent("main")).toContain("The hole has a cone in it now");
    await axe("publish page");
    await narrow();
    await page.focus("button:has-text('Publish the update')");
    await page.keyboard.press("Enter");
    await page.waitForSelector("text=Thank you for your update");
    await axe("published");
    await page.click(`a:has-text('Back to report ${reference}')`);
    await page.waitForSelector("text=Update from a resident");
    expect(await page.textContent(".report-history")).toContain("The hole has a cone in it now");
    const photo = page.locator(".report-history .update-photo img");
    expect(await photo.getAttribute("alt")).toBe("Photo added with this update (opens the full size)");
    const thumb = await page.request.get(`${site.base}${await photo.getAttribute("src")}`);
    expect(thumb.status()).toBe(200);
    expect(thumb.headers()["content-type"]).toBe("image/jpeg");
    await axe("report page with the update");
    await context.close();
    if (hasJava) expect(await nuErrors(served)).toEqual([]);
  });
});
