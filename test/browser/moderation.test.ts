import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import {
  browserAvailable,
  launchBrowser,
  type TestBrowser,
  watchPageProblems,
  freePort,
  axeChecker,
  addSessionCookie,
} from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";

/** "Report this" without JavaScript and by keyboard, and the moderation console, in Chromium with axe. */
describe.skipIf(!browserAvailable())("moderation in Chromium", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp("sqlite", { seed: true, env: { BASE_URL: base } });
    await t.app.listen({ port, host: "127.0.0.1" });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    "flags a report by keyboard without JavaScript; the forms and the console pass axe",
    { timeout: 120_000 },
    async () => {
      const { reference } = await submitReport(t.app.civic, reportSubmission({ title: "Flag me" }));
      const noJs = await browser.newContext({ javaScriptEnabled: false });
      const plain = await noJs.newPage();
      await plain.goto(`${base}/reports/${reference}`);
      await plain.click("a.report-this");
      await plain.focus("#reason-spam");
      await plain.keyboard.press("Space");
      await plain.press("#reason-spam", "Enter");
      await plain.waitForSelector("h1:has-text('Thank you')", { timeout: 30_000 });
      await noJs.close();

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      const { failures, check } = axeChecker(page);
      await page.goto(`${base}/report-this/report/${reference}`);
      await check("/report-this (form)");
      const moderator = await signInAs(t.app, "mod@example.org", "moderator");
      await addSessionCookie(context, base, moderator.cookie);
      await page.goto(`${base}/admin/moderation`);
      expect(await page.textContent("h1")).toBe("Moderation");
      expect(await page.content()).toContain(reference);
      await check("/admin/moderation");
      await page.goto(`${base}/admin/moderation/reports/${reference}/edit`);
      await check("/admin/moderation/reports/…/edit");
      await page.goto(`${base}/admin/moderation/account?email=mod%40example.org`);
      await check("/admin/moderation/account");
      await context.close();
      expect(failures, failures.join("\n")).toEqual([]);
      expect(problems).toEqual([]);
    },
  );
});
