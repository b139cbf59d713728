import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { signedIn, submitSlowly } from "./support.js";

describeEachDb("community pages in the sitemap and /llms.txt", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("a new project, a new idea and a sent newsletter issue join the sitemap at once", async () => {
    const v = new Visitor(h.app);
    const before = (await v.get("/sitemap.xml")).body;
    expect(before).toContain("/projects</loc>");
    expect(before).toContain("/ideas</loc>");
    expect(before).toContain("/volunteer</loc>");
    expect(before).toContain("/newsletter/archive</loc>");

    const mod = await signedIn(h, "mod@example.org", "moderator");
    await submitSlowly(h, mod, "/admin/projects/new", "/admin/projects", {
      title: "Allotment water butts",
      slug: "water-butts",
      summary: "Rain water for every allotment plot.",
      body: "Collecting rain.",
      status: "planned",
      startedOn: "2026-04-01",
      endsOn: "",
      lead: "Allotment society",
      roles: "",
    });
    h.advance(60_000);
    expect((await v.get("/sitemap.xml")).body).toContain("/projects/water-butts</loc>");

    // Only an idea and a newsletter issue change now: the sitemap still notices.
    const ann = await signedIn(h, "ann@example.org");
    const idea = await submitSlowly(h, ann, "/ideas/new", "/ideas", {
      title: "A book swap box",
      description: "A weatherproof box by the bus stop.",
      website: "",
    });
    const made = await submitSlowly(h, mod, "/admin/newsletter/new", "/admin/newsletter", {
      title: "Spring news",
      body: "Hello.",
      action: "save",
    });
    const issueId = String(made.headers.location).split("/").pop()!;
    await h.app.civic.database.db
      .updateTable("newsletter_issues")
      .set({ status: "sent", sent_at: h.app.civic.now().toISOString(), updated_at: h.app.civic.now().toISOString() })
      .where("id", "=", Number(issueId))
      .execute();

    h.advance(60_000);
    const after = (await v.get("/sitemap.xml")).body;
    expect(after).toContain(`${String(idea.headers.location)}</loc>`);
    expect(after).toContain(`/newsletter/archive/${issueId}</loc>`);

    const llms = (await v.get("/llms.txt")).body;
    for (const path of ["/ideas", "/projects", "/volunteer", "/newsletter", "/councillors", "/ideas.atom"]) {
      expect(llms).toContain(`${path})`);
    }
  });
});
