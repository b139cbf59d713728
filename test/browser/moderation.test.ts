import { describe, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp } from "../helpers/app.js";
import { browserAvailable, addSessionCookie, browserSite } from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";

/** "Report this" without JavaScript and by keyboard, and the moderation console, in Chromium with axe. */
describe.skipIf(!browserAvailable())("moderation in Chromium", () => {
  const site = browserSite((base) => createTestApp("sqlite", { seed: true, env: { BASE_URL: base } }), {
    host: "127.0.0.1",
  });

  it(
    "flags a report by keyboard without JavaScript; the forms and the console pass axe",
    { timeout: 120_000 },
    async () => {
      const { reference } = await submitReport(site.app.civic, reportSubmission({ title: "Flag me" }));
      const noJs = await site.browser.newContext({ javaScriptEnabled: false });
      const plain = await noJs.newPage();
      await plain.goto(`${site.base}/reports/${reference}`);
      await plain.click("a.report-this");
      await plain.focus("#reason-spam");
      await plain.keyboard.press("Space");
      await plain.press("#reason-spam", "Enter");
      await plain.waitForSelector("h1:has-text('Thank you')", { timeout: 30_000 });
      await noJs.close();

      const { context, page, problems, failures, check } = await site.checkedPage();
      await page.goto(`${site.base}/report-this/report/${reference}`);
      await check("/report-this (form)");
      const moderator = await signInAs(site.app, "mod@example.org", "moderator");
      await addSessionCookie(context, site.base, moderator.cookie);
      await page.goto(`${site.base}/admin/moderation`);
      expect(await page.textContent("h1")).toBe("Moderation");
      expect(await page.content()).toContain(reference);
      await check("/admin/moderation");
      await page.goto(`${site.base}/admin/moderation/reports/${reference}/edit`);
      await check("/admin/moderation/reports/…/edit");
      await page.goto(`${site.base}/admin/moderation/account?email=mod%40example.org`);
      await check("/admin/moderation/account");
      await context.close();
      expect(failures, failures.join("\n")).toEqual([]);
      expect(problems).toEqual([]);
    },
  );
});
