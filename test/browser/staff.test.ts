import { beforeAll, describe, expect, it } from "vitest";
import { accountsHarness, makeReport } from "../accounts/support.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The staff console in real Chromium: a signed-in admin (session made directly, cookie set in the browser) visits
 * every staff page, axe finds no WCAG 2.1 AA violation, and a status change works by keyboard without JavaScript.
 */
describe.skipIf(!browserAvailable())("staff console in Chromium", () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));
  let reference: string;
  let cookie: string;

  beforeAll(async () => {
    reference = (await makeReport(site.app, { email: "reporter@example.org" })).reference;
    cookie = (await signInAs(site.app, "admin@example.org", "admin")).cookie;
  });

  it("every staff page passes axe, and a status change works by keyboard without JavaScript", async () => {
    const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
    for (const path of [
      "/admin",
      "/admin/reports",
      `/admin/reports/${reference}`,
      "/admin/log",
      "/admin/staff",
      "/admin/api-keys",
    ]) {
      const res = await p.goto(`${site.base}${path}`);
      expect(res?.status(), path).toBe(200);
      await check(path);
    }

    const noJs = await site.newContext({ javaScriptEnabled: false, cookie: cookie });
    const q = await noJs.newPage();
    await q.goto(`${site.base}/admin/reports/${reference}`);
    await q.focus("#staff-status");
    await q.selectOption("#staff-status", "investigating");
    await q.keyboard.press("Tab");
    await q.keyboard.type("We are looking into it.");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${site.base}/admin/reports/${reference}?done=status`);
    expect(await q.textContent("[role=status]")).toContain("The status is changed");
    await noJs.close();

    await p.goto(`${site.base}/admin/reports/${reference}?done=status`);
    await check("staff report after a status change");

    // A stale form: someone else changes the status while this page is open.
    const other = await signInAs(site.app, "other@example.org", "moderator");
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

    await p.goto(`${site.base}/admin/log`);
    expect(await p.textContent("table")).toContain("report.status");
    await check("/admin/log with entries");

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("on a phone the staff menu folds behind a button that works without JavaScript; wide screens keep the column", async () => {
    const phone = await site.newContext({ cookie, javaScriptEnabled: false, viewport: { width: 320, height: 640 } });
    const p = await phone.newPage();
    await p.goto(`${site.base}/admin`);
    // The heading is on the first screen: it started at y = 796 under the unfolded menu (issue 34).
    const heading = (await p.getByRole("heading", { level: 1 }).boundingBox())!;
    expect(heading.y + heading.height).toBeLessThanOrEqual(640);
    const auditLog = p.locator(".staff-menu").getByRole("link", { name: "Audit log", exact: true });
    expect(await auditLog.isVisible()).toBe(false);
    await p.getByText("Staff menu", { exact: true }).click();
    expect(await auditLog.isVisible()).toBe(true);
    await auditLog.click();
    await p.waitForURL(`${site.base}/admin/log`);
    await phone.close();

    const wide = await site.newContext({ cookie, viewport: { width: 1280, height: 800 } });
    const w = await wide.newPage();
    await w.goto(`${site.base}/admin`);
    expect(await w.getByText("Staff menu", { exact: true }).isVisible()).toBe(false);
    const nav = w.getByRole("navigation", { name: "Staff" });
    expect(await nav.getByRole("link", { name: "Audit log", exact: true }).isVisible()).toBe(true);
    await wide.close();
  });
});
