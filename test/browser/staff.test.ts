import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import {
  browserAvailable,
  launchBrowser,
  type TestBrowser,
  watchPageProblems,
  freePort,
  axeChecker,
  addSessionCookie,
} from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The staff console in real Chromium: a signed-in admin (session made directly, cookie set in the browser) visits
 * every staff page, axe finds no WCAG 2.1 AA violation, and a status change works by keyboard without JavaScript.
 */
describe.skipIf(!browserAvailable())("staff console in Chromium", () => {
  let h: AccountsHarness;
  let browser: TestBrowser;
  let base: string;
  let reference: string;
  let cookie: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    h = await accountsHarness("sqlite", { BASE_URL: base });
    await h.app.listen({ port, host: "localhost" });
    browser = await launchBrowser();
    reference = (await makeReport(h.app, { email: "reporter@example.org" })).reference;
    cookie = (await signInAs(h.app, "admin@example.org", "admin")).cookie;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it("every staff page passes axe, and a status change works by keyboard without JavaScript", async () => {
    const context = await browser.newContext();
    await addSessionCookie(context, base, cookie);
    const p = await context.newPage();
    const problems = watchPageProblems(p);
    const { failures, check } = axeChecker(p);
    for (const path of [
      "/admin",
      "/admin/reports",
      `/admin/reports/${reference}`,
      "/admin/log",
      "/admin/staff",
      "/admin/api-keys",
    ]) {
      const res = await p.goto(`${base}${path}`);
      expect(res?.status(), path).toBe(200);
      await check(path);
    }

    const noJs = await browser.newContext({ javaScriptEnabled: false });
    await addSessionCookie(noJs, base, cookie);
    const q = await noJs.newPage();
    await q.goto(`${base}/admin/reports/${reference}`);
    await q.focus("#staff-status");
    await q.selectOption("#staff-status", "investigating");
    await q.keyboard.press("Tab");
    await q.keyboard.type("We are looking into it.");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${base}/admin/reports/${reference}?done=status`);
    expect(await q.textContent("[role=status]")).toContain("The status is changed");
    await noJs.close();

    await p.goto(`${base}/admin/reports/${reference}?done=status`);
    await check("staff report after a status change");

    // A stale form: someone else changes the status while this page is open.
    const other = await signInAs(h.app, "other@example.org", "moderator");
    const page = `/admin/reports/${reference}`;
    await other.post(
      `${page}/status`,
      { status: "in_progress", note: "Work started.", expected: "investigating" },
      page,
    );
    await p.fill("#staff-note", "Fixed now.");
    await p.click("button:has-text('Change status and publish the update')");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("since you opened the page");
    await check("staff report with an error");

    await p.goto(`${base}/admin/log`);
    expect(await p.textContent("table")).toContain("report.status");
    await check("/admin/log with entries");

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
