import { beforeAll, describe, expect, it } from "vitest";
import { accountsHarness, makeReport } from "../accounts/support.js";
import { axeChecker, browserAvailable, browserSite } from "../helpers/browser.js";
import { jpegWithGps } from "../helpers/images.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 36: a report's staff view with its moderation controls in real Chromium. Axe on the view and its error
 * state; the map drawn with JavaScript; without JavaScript on a 320 px phone, a photo is hidden and the text
 * redacted by keyboard alone, nothing scrolls sideways, and the place is still there in words and coordinates.
 */
describe.skipIf(!browserAvailable())(
  "a report's staff view: moderation controls in Chromium",
  { timeout: 120_000 },
  () => {
    const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));
    let reference: string;
    let photoId: number;
    let cookie: string;

    beforeAll(async () => {
      const author = await signInAs(site.app, "author@example.org", "resident");
      reference = (await makeReport(site.app, { email: "author@example.org" }, author.accountId, [await jpegWithGps()]))
        .reference;
      const [photo] = await site.app.civic.database.db
        .selectFrom("report_photos")
        .innerJoin("reports", "reports.id", "report_photos.report_id")
        .select("report_photos.id")
        .where("reports.reference", "=", reference)
        .execute();
      photoId = photo!.id;
      const flagger = await signInAs(site.app, "flagger@example.org", "resident");
      const url = `/report-this/report/${reference}`;
      await flagger.post(url, { reason: "personal", note: "A name on the sign" }, url);
      cookie = (await signInAs(site.app, "mod@example.org", "moderator")).cookie;
    });

    it("passes axe with JavaScript (the map drawn) and in its error state", async () => {
      const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
      await p.goto(`${site.base}/admin/reports/${reference}`);
      await p.waitForSelector(".report-view-map.leaflet-container");
      expect(await p.textContent(".staff-photos")).not.toContain("Hidden");
      expect(await p.isVisible(`img[src="/admin/reports/${reference}/photos/${photoId}-thumb.jpg"]`)).toBe(true);
      expect(
        await p.evaluate(() => {
          const img = document.querySelector<HTMLImageElement>(".staff-photos img");
          return img?.complete === true && img.naturalWidth > 0;
        }),
      ).toBe(true);
      await check("staff view with its moderation controls");
      // The reason is required in the browser too; without that check, the server's form error.
      await p.evaluate(() => document.querySelector("#staff-moderation_reason")?.removeAttribute("required"));
      await p.click("button:has-text('Record the decision on this report')");
      await p.waitForSelector(".error-summary");
      expect(await p.textContent(".error-summary")).toContain("a reason is required");
      expect(await p.getAttribute("#staff-moderation_reason", "aria-invalid")).toBe("true");
      await check("staff view with a missing moderation reason");
      expect(failures, failures.join("\n\n")).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it("without JavaScript at 320 px: hides a photo and redacts the text by keyboard; axe-clean", async () => {
      const context = await site.newContext({
        javaScriptEnabled: false,
        viewport: { width: 320, height: 800 },
        cookie,
      });
      const q = await context.newPage();
      const noJs = axeChecker(q, { javaScript: false });
      await q.goto(`${site.base}/admin/reports/${reference}`);
      expect(await q.textContent(".report-facts")).toMatch(/Map position\s*50\.98650, -2\.04400/);
      expect(await q.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      await noJs.check("staff view (without JavaScript, 320 px)");

      // Open "Hide this photo", write the reason, send: by keyboard.
      await q.focus(".staff-photos summary");
      await q.keyboard.press("Enter");
      await q.focus(`#staff-photo_${photoId}_reason`);
      await q.keyboard.type("Shows a neighbour's face.");
      await q.keyboard.press("Tab");
      await q.keyboard.press("Enter");
      await q.waitForURL(`${site.base}/admin/reports/${reference}?done=moderated`);
      expect(await q.textContent("[role=status]")).toContain("The moderation decision is recorded");
      expect(await q.textContent(".staff-photos")).toContain("[Hidden from the public]");
      expect(await q.textContent("#staff-moderation-heading + p + h3 + ul")).toContain("A name on the sign");
      await noJs.check("staff view after hiding a photo (without JavaScript, 320 px)");

      await q.focus("#staff-redact_description");
      await q.keyboard.press("Control+A");
      await q.keyboard.type("Deep hole on the corner. [name removed]");
      await q.keyboard.press("Tab");
      await q.keyboard.type("A person's name");
      await q.keyboard.press("Tab");
      await q.keyboard.press("Enter");
      await q.waitForURL(`${site.base}/admin/reports/${reference}?done=redacted`);
      expect(await q.textContent(".report-description")).toContain("[name removed]");
      expect(await q.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      await noJs.check("staff view after a redaction (without JavaScript, 320 px)");

      const pub = await context.newPage();
      await pub.goto(`${site.base}/reports/${reference}`);
      expect(await pub.textContent("main")).toContain("[name removed]");
      expect(noJs.failures, noJs.failures.join("\n\n")).toEqual([]);
      await context.close();
    });
  },
);
