import { beforeAll, describe, expect, it } from "vitest";
import { accountsHarness } from "../accounts/support.js";
import { browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The community staff pages in real Chromium: a moderator creates a project by keyboard without JavaScript (a
 * mistake first, the form keeps what was typed), edits it, posts an update; every page passes axe (WCAG 2.1 AA),
 * as do the ideas, volunteers and newsletter staff pages and the public project page with its Markdown.
 */
describe.skipIf(!browserAvailable())("community staff pages in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));
  let cookie: string;

  beforeAll(async () => {
    cookie = (await signInAs(site.app, "mod@example.org", "moderator")).cookie;
  });

  it("projects are created, edited and updated by keyboard without JavaScript, and every page passes axe", async () => {
    // Without JavaScript, by keyboard.
    const noJs = await site.newContext({ javaScriptEnabled: false, cookie: cookie });
    const p = await noJs.newPage();
    await p.goto(`${site.base}/admin/projects/new`);
    await p.focus("#title");
    await p.keyboard.type("Village orchard");
    await p.keyboard.press("Tab");
    await p.keyboard.type("village-orchard");
    await p.keyboard.press("Tab");
    await p.keyboard.type("Too short");
    await p.keyboard.press("Tab");
    await p.keyboard.type("## Why\n\nFruit for **everyone**. [Plan](https://example.org/plan)");
    await p.selectOption("#status", "active");
    await p.fill("#lead", "Orchard group");
    await p.fill("#roles", "Pruner\nPicker");
    await p.focus("button[type=submit]");
    await p.keyboard.press("Enter");
    await p.waitForSelector(".error-summary");
    expect(await p.inputValue("#title")).toBe("Village orchard");
    expect(await p.inputValue("#body")).toContain("Fruit for **everyone**");

    await p.fill("#summary", "Planting fruit trees on the green.");
    await p.focus("button[type=submit]");
    await p.keyboard.press("Enter");
    await p.waitForURL(`${site.base}/admin/projects/village-orchard?saved=1`);
    expect(await p.textContent("[role=status]")).toContain("Saved");

    await p.fill("#updateTitle", "Trees arrived");
    await p.fill("#updateBody", "Twelve *apple* trees.");
    await p.click("button:has-text('Post update')");
    await p.waitForURL(`${site.base}/admin/projects/village-orchard?saved=1`);

    await p.goto(`${site.base}/projects/village-orchard`);
    expect(await p.textContent("main")).toContain("Trees arrived");
    await noJs.close();

    // Public detail pages: an idea adopted into the project, a councillor, a sent newsletter issue in Markdown.
    const db = site.app.civic.database.db;
    const at = site.app.civic.now().toISOString();
    const idea = await db
      .insertInto("ideas")
      .values({
        title: "Fruit trees on the green",
        description: "Apples and pears for everyone.",
        category: null,
        place_id: null,
        location_text: null,
        photo_hash: null,
        status: "adopted",
        response: "This became the orchard project.",
        project_id: "village-orchard",
        account_id: null,
        email: null,
        created_at: at,
        published_at: at,
        updated_at: at,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const issue = await db
      .insertInto("newsletter_issues")
      .values({
        title: "Orchard news",
        body: "# Planting day\n\nCome on **Saturday**. [Map](https://example.org/map)\n\n- spades\n- gloves",
        status: "sent",
        created_at: at,
        updated_at: at,
        send_started_at: at,
        sent_at: at,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const councillor = await db.selectFrom("councillors").select("id").executeTakeFirstOrThrow();

    // axe on every page (axe runs as a script, so this context has JavaScript).
    const { context, page: q, problems, failures, check } = await site.checkedPage(cookie);
    for (const path of [
      "/admin/projects",
      "/admin/projects/new",
      "/admin/projects/village-orchard",
      "/projects/village-orchard",
      "/admin/ideas",
      "/admin/volunteers",
      "/admin/newsletter",
      "/admin/newsletter/new",
      "/volunteer",
      `/ideas/${idea.id}`,
      `/admin/ideas/${idea.id}`,
      `/newsletter/archive/${issue.id}`,
      `/councillors/${councillor.id}`,
    ]) {
      const res = await q.goto(`${site.base}${path}`);
      expect(res?.status(), path).toBe(200);
      await check(path);
    }
    await q.goto(`${site.base}/projects/village-orchard`);
    expect(await q.getAttribute(`a[href="/ideas/${idea.id}"]`, "href")).toBe(`/ideas/${idea.id}`);
    await q.goto(`${site.base}/admin/projects/village-orchard`);
    await q.fill("#title", "");
    await q.click("button:has-text('Save project')");
    await q.waitForSelector(".error-summary");
    await check("project form with an error");

    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
