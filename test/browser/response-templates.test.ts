import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp } from "../helpers/app.js";
import { axeChecker, browserAvailable, browserSite, watchPageProblems } from "../helpers/browser.js";
import { reportSubmission } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";

const PHONE = { width: 320, height: 800 };

/**
 * Response templates and the audit log in real Chromium at 320 px (issue 36): the template page and the staff status
 * form pass axe (errors showing too) without sideways scroll; a template is added by keyboard; with JavaScript,
 * choosing a template fills the editable text and only the chosen status's templates are offered; without it, a
 * chosen template's text is published when the text box is left empty.
 */
describe.skipIf(!browserAvailable())("response templates in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite((base) => createTestApp("sqlite", { seed: true, env: { BASE_URL: base } }));
  let cookie: string;
  let reference: string;
  const db = () => site.app.civic.database.db;
  const noSidewaysScroll = async (page: Page) =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  beforeAll(async () => {
    cookie = (await signInAs(site.app, "admin@example.org", "admin")).cookie;
    reference = (await submitReport(site.app.civic, reportSubmission())).reference;
  });

  it("adds templates by keyboard and fills the status form's text with JavaScript, at 320 px, passing axe", async () => {
    const context = await site.newContext({ cookie, viewport: PHONE });
    const p = await context.newPage();
    const problems = watchPageProblems(p);
    const { failures, check } = axeChecker(p);

    await p.goto(`${site.base}/admin/response-templates`);
    await check("templates, none yet");
    await noSidewaysScroll(p);
    // Sent empty (past the browser's own check): the form comes back with its messages.
    await p.evaluate(() => document.querySelectorAll("form").forEach((f) => (f.noValidate = true)));
    await p.focus("button:has-text('Add the template')");
    await p.keyboard.press("Enter");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("Enter the template's name.");
    await check("templates with errors");
    await noSidewaysScroll(p);

    await p.focus("#admin-title");
    await p.keyboard.type("Pothole filled");
    await p.keyboard.press("Tab");
    await p.selectOption("#admin-category", "pothole");
    await p.selectOption("#admin-status", "fixed");
    await p.focus("#admin-body");
    await p.keyboard.type("Our team filled the pothole today. Thank you for reporting it.");
    await p.focus("button:has-text('Add the template')");
    await p.keyboard.press("Enter");
    await p.waitForURL(/\/admin\/response-templates\/\d+\?done=added$/);
    await check("one template");
    await noSidewaysScroll(p);
    for (const [title, status, body] of [
      ["Looking into it", "investigating", "We are looking into this report."],
      ["Fixed, every category", "fixed", "This is fixed."],
    ]) {
      await p.goto(`${site.base}/admin/response-templates`);
      await p.fill("#admin-title", title!);
      await p.selectOption("#admin-status", status!);
      await p.fill("#admin-body", body!);
      await p.click("button:has-text('Add the template')");
      await p.waitForURL(/\?done=added$/);
    }
    await p.goto(`${site.base}/admin/response-templates`);
    await check("three templates");
    await noSidewaysScroll(p);

    const view = `${site.base}/admin/reports/${reference}`;
    await p.goto(view);
    await check("status form with templates");
    await noSidewaysScroll(p);
    // The first status offered is "Investigating": only its template shows.
    expect(await p.isVisible("label:has-text('Looking into it')")).toBe(true);
    expect(await p.isVisible("label:has-text('Pothole filled')")).toBe(false);
    await p.selectOption("#staff-status", "fixed");
    expect(await p.isVisible("label:has-text('Pothole filled')")).toBe(true);
    expect(await p.isVisible("label:has-text('Looking into it')")).toBe(false);
    await p.focus("label:has-text('Pothole filled') >> xpath=ancestor::div[1]//input");
    await p.keyboard.press("Space");
    expect(await p.inputValue("#staff-note")).toBe("Our team filled the pothole today. Thank you for reporting it.");
    // Own text is never replaced by another template.
    await p.fill("#staff-note", "Filled today by the highways team.");
    await p.check("label:has-text('Fixed, every category') >> xpath=ancestor::div[1]//input");
    expect(await p.inputValue("#staff-note")).toBe("Filled today by the highways team.");
    expect(await p.textContent("#staff-template-status")).toContain("Your own text is kept");
    await check("status form, template chosen");
    await p.click("button:has-text('Change status and publish the update')");
    await p.waitForURL(`${view}?done=status`);
    const update = await db()
      .selectFrom("report_updates")
      .innerJoin("reports", "reports.id", "report_updates.report_id")
      .select("report_updates.note")
      .where("reports.reference", "=", reference)
      .where("report_updates.status", "=", "fixed")
      .executeTakeFirstOrThrow();
    expect(update.note).toBe("Filled today by the highways team.");

    await p.goto(`${site.base}/admin/log`);
    expect(await p.textContent("table")).toContain("FromOpenToFixed");
    expect(await p.textContent("table")).not.toContain("{");
    await check("audit log");
    await noSidewaysScroll(p);

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("without JavaScript, at 320 px, publishes a chosen template's text when the text box is left empty", async () => {
    const other = (await submitReport(site.app.civic, reportSubmission())).reference;
    const context = await site.newContext({ cookie, viewport: PHONE, javaScriptEnabled: false });
    const p = await context.newPage();
    const { failures, check } = axeChecker(p, { javaScript: false });
    const view = `${site.base}/admin/reports/${other}`;
    await p.goto(view);
    // Every matching template is listed, each naming its status.
    expect(await p.isVisible("label:has-text('Pothole filled (for “Fixed”)')")).toBe(true);
    expect(await p.isVisible("label:has-text('Looking into it (for “Investigating”)')")).toBe(true);
    await check("status form without JavaScript");
    await noSidewaysScroll(p);

    // A template for another status than the one chosen: a clear message, nothing changed.
    await p.focus("label:has-text('Pothole filled') >> xpath=ancestor::div[1]//input");
    await p.keyboard.press("Space");
    await p.focus("button:has-text('Change status and publish the update')");
    await p.keyboard.press("Enter");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("is for the status “Fixed”");
    await check("status form with a template error");
    await noSidewaysScroll(p);

    await p.selectOption("#staff-status", "fixed");
    await p.check("label:has-text('Pothole filled') >> xpath=ancestor::div[1]//input");
    await p.focus("button:has-text('Change status and publish the update')");
    await p.keyboard.press("Enter");
    await p.waitForURL(`${view}?done=status`);
    expect(await p.textContent(".timeline")).toContain("Our team filled the pothole today.");

    expect(failures, failures.join("\n\n")).toEqual([]);
    await context.close();
  });
});
