import { beforeAll, describe, expect, it } from "vitest";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { accountsHarness, makeReport } from "../accounts/support.js";
import { axeChecker, browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * "I have seen this too" and the staff inbox in real Chromium (issue 36): axe on the control, its error state, the
 * confirmation pages and the inbox with its map; by keyboard without JavaScript; nothing scrolls sideways at 320 px.
 */
describe.skipIf(!browserAvailable())("seen too and the inbox in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));
  let reference: string;
  let cookie: string;

  beforeAll(async () => {
    reference = (await makeReport(site.app, { email: null })).reference;
    cookie = (await signInAs(site.app, "mod@example.org", "moderator")).cookie;
  });

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

  it("marks a report as seen by keyboard without JavaScript at 320 px, with an address confirmed; axe-clean", async () => {
    const context = await site.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 800 } });
    const q = await context.newPage();
    const checker = axeChecker(q, { javaScript: false });
    const narrow = async (label: string) => {
      await checker.check(`${label} (320 px, without JavaScript)`);
      expect(await q.evaluate(() => document.documentElement.scrollWidth), label).toBeLessThanOrEqual(320);
    };
    await q.goto(`${site.base}/reports/${reference}`);
    await narrow("report page with the seen-too control");
    expect(await q.textContent(".seen-count")).toContain("Nobody has said");

    // An address that is not one: the form again with the error, the field marked.
    site.harness.advance(4_000);
    await q.focus("#seen-email");
    await q.keyboard.type("not an address");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForSelector(".error-summary");
    expect(await q.getAttribute("#seen-email", "aria-invalid")).toBe("true");
    await narrow("seen-too form with an error");

    // Without an address: counted at once.
    await q.goto(`${site.base}/reports/${reference}`);
    site.harness.advance(4_000);
    await q.focus("#seen-email");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForSelector("h1:has-text('Thank you')");
    expect(await q.textContent("main")).toContain("1 person has said they have seen this too.");
    await narrow("seen-too thanks");

    // With an address: a link in a mail opens a page whose button confirms.
    await q.goto(`${site.base}/reports/${reference}`);
    site.harness.advance(4_000);
    await q.focus("#seen-email");
    await q.keyboard.type("walker@example.org");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForSelector("h1:has-text('Check your email')");
    await narrow("seen-too check your email");
    const link = await mailMatching("walker@example.org", /(http:\/\/\S+\/reports\/seen\/confirm\/[A-Za-z0-9_-]{43})/);
    await q.goto(link);
    await narrow("seen-too confirm page");
    await q.focus("button:has-text('Confirm')");
    await q.keyboard.press("Enter");
    await q.waitForSelector("h1:has-text('Thank you')");
    await narrow("seen-too confirmed");
    await q.goto(`${site.base}/reports/${reference}`);
    expect(await q.textContent(".seen-count")).toContain("2 people have said they have seen this too.");

    expect(checker.failures, checker.failures.join("\n\n")).toEqual([]);
    await context.close();
  });

  it("the inbox with its new columns, order and map passes axe, works without JavaScript at 320 px", async () => {
    const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
    await p.goto(`${site.base}/admin/reports?sort=seen`);
    await p.waitForSelector(".reports-map-canvas .leaflet-marker-icon, .reports-map-canvas .report-cluster", {
      timeout: 20_000,
    });
    const href = await p.getAttribute(".map-in-view a", "href");
    expect(href).toMatch(/^\/admin\/reports\/[A-Z0-9-]+$/);
    await check("inbox with the map");

    const noJs = await site.newContext({ javaScriptEnabled: false, cookie, viewport: { width: 320, height: 800 } });
    const q = await noJs.newPage();
    const withoutJs = axeChecker(q, { javaScript: false });
    await q.goto(`${site.base}/admin/reports`);
    await q.focus("#inbox-sort");
    await q.selectOption("#inbox-sort", "oldest");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(/sort=oldest/);
    expect(await q.textContent("tbody")).toMatch(/open (\d+ days?|less than a day)/);
    await withoutJs.check("inbox sorted by age (320 px, without JavaScript)");
    expect(await q.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await noJs.close();

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(withoutJs.failures, withoutJs.failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
