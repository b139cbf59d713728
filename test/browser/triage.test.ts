import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { accountsHarness, makeReport } from "../accounts/support.js";
import { axeChecker, browserAvailable, browserSite } from "../helpers/browser.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The triage actions and "Get updates by email" in real Chromium: axe on every new form and page (with their error
 * states), the staff forms and the follow, confirm and unsubscribe pages used by keyboard without JavaScript.
 */
describe.skipIf(!browserAvailable())("triage actions and following in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));
  let original: string;
  let reference: string;
  let cookie: string;

  beforeAll(async () => {
    original = (await makeReport(site.app, { email: null })).reference;
    reference = (await makeReport(site.app, { email: null })).reference;
    cookie = (await signInAs(site.app, "admin@example.org", "admin")).cookie;
  });

  it("the staff forms pass axe, show errors accessibly and work by keyboard without JavaScript", async () => {
    const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
    await p.goto(`${site.base}/admin/reports/${reference}`);
    await check("staff view with the triage forms");
    await p.goto(`${site.base}/admin/reports?assigned=me`);
    await check("inbox filtered by assignee");

    await p.goto(`${site.base}/admin/reports/${reference}`);
    await p.fill("#staff-original", reference);
    await p.click("button:has-text('Mark as a duplicate')");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("cannot be a duplicate of itself");
    expect(await p.getAttribute("#staff-original", "aria-invalid")).toBe("true");
    await check("staff view with a duplicate error");

    const noJs = await site.newContext({ javaScriptEnabled: false, cookie: cookie });
    const q = await noJs.newPage();
    const withoutJs = axeChecker(q, { javaScript: false });
    await q.goto(`${site.base}/admin/reports/${reference}`);
    await withoutJs.check("staff view with the triage forms (without JavaScript)");
    await q.focus("#staff-assignee");
    await q.selectOption("#staff-assignee", { label: "admin@example.org" });
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${site.base}/admin/reports/${reference}?done=assign`);
    expect(await q.textContent("[role=status]")).toContain("The assignment is saved.");

    await q.focus("#staff-category");
    await q.selectOption("#staff-category", "streetlight");
    await q.keyboard.press("Tab");
    await q.keyboard.type("Lamp post, not road.");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${site.base}/admin/reports/${reference}?done=category`);

    await q.focus("#staff-original");
    await q.keyboard.type(original);
    await q.keyboard.press("Tab");
    await q.keyboard.type("Reported twice.");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${site.base}/admin/reports/${reference}?done=duplicate`);
    expect(await q.textContent(".duplicate-links")).toContain(original);
    await withoutJs.check("staff view of a duplicate (without JavaScript)");
    await noJs.close();

    await p.goto(`${site.base}/admin/reports/${reference}?done=duplicate`);
    await check("staff view of a duplicate");
    await p.goto(`${site.base}/reports/${original}`);
    expect(await p.textContent(".duplicate-links")).toContain(reference);
    await check("public page of an original with its duplicate");

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(withoutJs.failures, withoutJs.failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  /** The newest mail to `to` whose text matches `pattern` (runs the outbox until it arrives). */
  async function mailMatching(to: string, pattern: RegExp): Promise<string> {
    const worker = site.app.civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;
    for (let i = 0; i < 200; i++) {
      const found = site.harness.smtp.received
        .filter((m) => m.to.includes(to))
        .map((m) => pattern.exec(m.parsed.text ?? "")?.[1])
        .filter((x): x is string => !!x);
      if (found.length > 0) return found[found.length - 1]!;
      await worker.runOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no mail to ${to} matching ${pattern}`);
  }

  /** Follows `original` as `email` in `page`, confirms and stops the updates: by keyboard, or with axe checks. */
  async function followFlow(page: Page, email: string, check?: (label: string) => Promise<void>) {
    await page.goto(`${site.base}/reports/${original}`);
    site.harness.advance(4_000);
    await page.focus("#follow-email");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForSelector("h1:has-text('Check your email')");
    await check?.("check your email");

    const confirmUrl = await mailMatching(email, /(http:\/\/\S+\/reports\/updates\/confirm\/[A-Za-z0-9_-]{43})/);
    await page.goto(confirmUrl);
    await check?.("confirm page");
    await page.focus("button:has-text('Confirm')");
    await page.keyboard.press("Enter");
    await page.waitForSelector("h1:has-text('You will get the updates')");
    await check?.("confirmed");
  }

  async function stopFlow(page: Page, email: string, check?: (label: string) => Promise<void>) {
    const unsubscribe = await mailMatching(email, /Stop the updates on this report: (\S+)/);
    await page.goto(unsubscribe);
    await check?.("unsubscribe page");
    await page.focus("button:has-text('Stop the updates')");
    await page.keyboard.press("Enter");
    await page.waitForSelector("h1:has-text('The updates are stopped')");
    await check?.("unsubscribed");
  }

  it("follows a report, confirms and stops the updates by keyboard with and without JavaScript; axe-clean", async () => {
    const { context: withJs, page: p, problems, failures, check } = await site.checkedPage();
    await p.goto(`${site.base}/reports/${original}`);
    await check("report page with the follow form");
    site.harness.advance(4_000);
    await p.fill("#follow-email", "not an address");
    await p.click("button:has-text('Get updates')");
    await p.waitForSelector(".error-summary");
    expect(await p.getAttribute("#follow-email", "aria-invalid")).toBe("true");
    await check("follow form with an error");

    await followFlow(p, "js-fan@example.org", check);
    const noJs = await site.browser.newContext({ javaScriptEnabled: false });
    const q = await noJs.newPage();
    // Axe without JavaScript too: the same pages as a visitor without scripts gets them.
    const withoutJs = axeChecker(q, { javaScript: false });
    const checkNoJs = (label: string) => withoutJs.check(`${label} (without JavaScript)`);
    await q.goto(`${site.base}/reports/${original}`);
    await checkNoJs("report page with the follow form");
    await followFlow(q, "fan@example.org", checkNoJs);

    const moderator = await signInAs(site.app, "mod@example.org", "moderator");
    const admin = `/admin/reports/${original}`;
    await moderator.post(`${admin}/status`, { status: "investigating", note: "Looking.", expected: "open" }, admin);
    await stopFlow(p, "js-fan@example.org", check);
    await stopFlow(q, "fan@example.org", checkNoJs);
    await noJs.close();
    const followers = await site.app.civic.database.db.selectFrom("report_followers").selectAll().execute();
    expect(followers).toEqual([]);

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(withoutJs.failures, withoutJs.failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await withJs.close();
  });
});
