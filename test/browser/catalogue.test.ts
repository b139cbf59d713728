import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Category administration in real Chromium: every page passes axe (also with error messages showing), and a
 * category and a question are added by keyboard without JavaScript.
 */
describe.skipIf(!browserAvailable())("category administration in Chromium", { timeout: 120_000 }, () => {
  // The site's own Open311 API plays the council of a department's connection check (on loopback).
  const site = browserSite((base) =>
    createTestApp("sqlite", { seed: true, env: { BASE_URL: base, FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true" } }),
  );
  let cookie: string;

  beforeAll(async () => {
    cookie = (await signInAs(site.app, "admin@example.org", "admin")).cookie;
  });

  it("every category page passes axe; a department is added by keyboard without JavaScript, a category and a question by keyboard", async () => {
    const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
    const department = await site.harness.db.database.db
      .selectFrom("departments")
      .select("id")
      .executeTakeFirstOrThrow();
    for (const path of [
      "/admin/categories",
      "/admin/categories/new",
      "/admin/categories/streetlight",
      "/admin/categories/streetlight/questions",
      "/admin/categories/streetlight/questions/fault",
      "/admin/departments",
      `/admin/departments/${department.id}`,
    ]) {
      const res = await p.goto(`${site.base}${path}`);
      expect(res?.status(), path).toBe(200);
      await check(path);
    }

    // Without JavaScript, by keyboard: a department.
    const noJs = await site.newContext({ javaScriptEnabled: false, cookie: cookie });
    const q = await noJs.newPage();
    await q.goto(`${site.base}/admin/departments`);
    await q.focus("#admin-name");
    await q.keyboard.type("Hedges team");
    await q.keyboard.press("Tab");
    await q.keyboard.type("hedges@council.example.org");
    await q.keyboard.press("Tab");
    await q.keyboard.type("New team");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${site.base}/admin/departments?done=department`);
    expect(await q.textContent("table")).toContain("Hedges team");
    await noJs.close();

    // A new category by keyboard: first with a bad code (the form comes back with messages), then corrected.
    await p.goto(`${site.base}/admin/categories/new`);
    await p.focus("#admin-code");
    await p.keyboard.type("Bad code");
    await p.keyboard.press("Tab");
    await p.keyboard.type("Overgrown hedge");
    await p.focus("button:has-text('Add the category')");
    await p.keyboard.press("Enter");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("The service code is not valid");
    expect(await p.inputValue("#admin-name")).toBe("Overgrown hedge");
    await check("new category with errors");
    await p.fill("#admin-code", "hedges");
    await p.focus("button:has-text('Add the category')");
    await p.keyboard.press("Enter");
    await p.waitForURL(`${site.base}/admin/categories/hedges?done=created`);
    expect(await p.textContent("[role=status]")).toContain("The category is added");
    await check("category just added");

    // A list question by keyboard, then its page with errors for a bad one.
    await p.goto(`${site.base}/admin/categories/hedges/questions`);
    await p.focus("#admin-code");
    await p.keyboard.type("side");
    await p.keyboard.press("Tab");
    await p.keyboard.type("Which side of the road?");
    await p.selectOption("#admin-datatype", "singlevaluelist");
    await p.focus("#admin-values");
    await p.keyboard.type("left | Left side");
    await p.keyboard.press("Enter");
    await p.keyboard.type("right | Right side");
    await p.focus("button:has-text('Add the question')");
    await p.keyboard.press("Enter");
    await p.waitForURL(`${site.base}/admin/categories/hedges/questions?done=added`);
    expect(await p.textContent("ol.questions")).toContain("Which side of the road?");
    await check("questions with one question");
    await p.fill("#admin-code", "side");
    await p.fill("#admin-description", "Again");
    await p.click("button:has-text('Add the question')");
    await p.waitForSelector(".error-summary");
    await check("questions with errors");

    const form = await p.goto(`${site.base}/report?category=hedges`);
    expect(form?.status()).toBe(200);
    expect(await p.textContent("main")).toContain("Which side of the road?");

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a department's delivery method is set and its connection checked by keyboard without JavaScript", async () => {
    const { department_id: id } = await site.harness.db.database.db
      .selectFrom("categories")
      .select("department_id")
      .where("code", "=", "streetlight")
      .executeTakeFirstOrThrow();
    const path = `${site.base}/admin/departments/${id}`;
    const noJs = await site.newContext({ javaScriptEnabled: false, cookie: cookie });
    const q = await noJs.newPage();
    await q.goto(path);
    await q.focus("#admin-method-email");
    await q.keyboard.press("ArrowDown");
    expect(await q.isChecked("#admin-method-open311")).toBe(true);
    await q.keyboard.press("Tab");
    await q.keyboard.type(`${site.base}/api/v2/`);
    await q.keyboard.press("Tab");
    await q.keyboard.type("typed-council-key-42");
    await q.keyboard.press("Tab");
    await q.keyboard.press("Tab");
    await q.keyboard.type("streetlight");
    await q.keyboard.press("Tab");
    await q.keyboard.type("fault=fault");
    await q.keyboard.press("Tab");
    // The council's status table: left as it is (the default table).
    await q.keyboard.press("Tab");
    await q.keyboard.press("Enter");
    await q.waitForURL(`${path}?done=delivery-key`);
    expect(await q.textContent("[role=status]")).toContain("The API key is stored sealed; it is not shown again.");
    expect(await q.content()).not.toContain("typed-council-key-42");
    expect(await q.inputValue("#admin-service-streetlight")).toBe("streetlight");

    await q.focus("button:has-text('Check the connection')");
    await q.keyboard.press("Enter");
    await q.waitForSelector("#check-result");
    expect(q.url()).toBe(`${path}/check#check-result`);
    expect(await q.textContent("#check-result")).toContain("Maps");
    await noJs.close();

    // The same states pass axe (with JavaScript): the form, the check's answer, and a refused save.
    const { context, page: p, problems, failures, check } = await site.checkedPage(cookie);
    await p.goto(path);
    await check("department delivery");
    await p.click("button:has-text('Check the connection')");
    await p.waitForSelector("#check-result");
    await check("department connection check");
    await p.fill("#admin-endpoint", "ftp://council.example.org/");
    await p.click("button:has-text('Save how reports are sent')");
    await p.waitForSelector(".error-summary");
    expect(await p.textContent(".error-summary")).toContain("Enter the endpoint");
    await check("department delivery with errors");
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
