import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { signedIn, submitSlowly } from "./support.js";

const project = {
  title: "Pond restoration",
  slug: "",
  summary: "Clearing and replanting the village pond.",
  body: "# The plan\n\nWe will **dredge** the pond. See [the survey](https://example.org/survey).\n\n<script>alert(1)</script> [x](javascript:alert(1))",
  status: "active",
  startedOn: "2026-03-01",
  endsOn: "2026-09-30",
  lead: "Pond group",
  roles: "Litter picker\nPlanter\n",
};

describeEachDb("staff projects", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  const audit = (action: string) =>
    h.app.civic.database.db.selectFrom("audit_log").selectAll().where("action", "=", action).execute();

  it("staff create a project: bad input keeps everything typed; the page renders its Markdown safely", async () => {
    const mod = await signedIn(h, "mod@example.org", "moderator");
    const list = await mod.get("/admin/projects");
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('class="staff-nav"');

    const bad = await submitSlowly(h, mod, "/admin/projects/new", "/admin/projects", {
      ...project,
      slug: "Not A Slug!",
      startedOn: "2026-02-30",
      endsOn: "2025-01-01",
      summary: "short",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("<title>Error: ");
    expect(bad.body).toContain('aria-invalid="true"');
    for (const kept of [
      'value="Pond restoration"',
      'value="Not A Slug!"',
      'value="2026-02-30"',
      "Litter picker\nPlanter",
    ]) {
      expect(bad.body).toContain(kept);
    }
    expect(bad.body).toContain("We will **dredge** the pond.");
    expect(bad.body).toContain("&lt;script>alert(1)&lt;/script>");
    for (const field of ["slug", "startedOn", "summary"]) expect(bad.body).toContain(`id="${field}-error"`);
    expect(await audit("project.create")).toHaveLength(0);

    const made = await submitSlowly(h, mod, "/admin/projects/new", "/admin/projects", project);
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe("/admin/projects/pond-restoration?saved=1");
    const again = await submitSlowly(h, mod, "/admin/projects/new", "/admin/projects", project);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain("Another project has this web address");
    expect(await audit("project.create")).toHaveLength(1);

    const page = await new Visitor(h.app).get("/projects/pond-restoration");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<h2>The plan</h2>");
    expect(page.body).toContain("<strong>dredge</strong>");
    expect(page.body).toContain('href="https://example.org/survey" rel="nofollow ugc noopener"');
    expect(page.body).not.toContain("<script>alert");
    expect(page.body).not.toContain('href="javascript:');
    expect(page.body).toContain("30 September 2026");
    expect(page.body).toContain("/volunteer?project=pond-restoration&amp;role=Planter");
    expect(String(page.headers["content-security-policy"])).toContain("script-src 'self'");
    expect(String(page.headers["content-security-policy"])).not.toContain("unsafe-inline");

    // The volunteer form offers the project's roles.
    const form = await new Visitor(h.app).get("/volunteer");
    expect(form.body).toContain('value="pond-restoration|Planter"');
    const chosen = await new Visitor(h.app).get("/volunteer?project=pond-restoration&role=Planter");
    expect(chosen.body).toMatch(/value="pond-restoration\|Planter" selected/);
  });

  it("editing keeps the web address; updates are dated, validated, public and in the feed; each change is audited", async () => {
    const mod = await signedIn(h, "mod@example.org", "moderator");
    await submitSlowly(h, mod, "/admin/projects/new", "/admin/projects", { ...project, slug: "pond" });
    const edited = await submitSlowly(h, mod, "/admin/projects/pond", "/admin/projects/pond", {
      ...project,
      slug: "renamed",
      title: "Pond restoration, phase 2",
      status: "completed",
    });
    expect(edited.statusCode).toBe(303);
    expect(edited.headers.location).toBe("/admin/projects/pond?saved=1");
    expect((await new Visitor(h.app).get("/projects/pond")).body).toContain("Pond restoration, phase 2");
    expect((await new Visitor(h.app).get("/projects/renamed")).statusCode).toBe(404);
    const edits = await audit("project.edit");
    expect(edits).toHaveLength(1);
    expect(JSON.parse(edits[0]!.details)).toEqual({ changed: expect.arrayContaining(["title", "status"]) });

    const badEdit = await submitSlowly(h, mod, "/admin/projects/pond", "/admin/projects/pond", {
      ...project,
      title: "",
      lead: "",
    });
    expect(badEdit.statusCode).toBe(400);
    expect(badEdit.body).toContain("Clearing and replanting the village pond.");

    const badUpdate = await submitSlowly(h, mod, "/admin/projects/pond", "/admin/projects/pond/updates", {
      updateTitle: "",
      updateBody: "The *reeds* are in.",
    });
    expect(badUpdate.statusCode).toBe(400);
    expect(badUpdate.body).toContain("The *reeds* are in.</textarea>");
    const posted = await submitSlowly(h, mod, "/admin/projects/pond", "/admin/projects/pond/updates", {
      updateTitle: "Reeds planted",
      updateBody: "# Done\n\nThe *reeds* are in.",
    });
    expect(posted.statusCode).toBe(303);
    const pub = (await new Visitor(h.app).get("/projects/pond")).body;
    expect(pub).toContain("<h3>Reeds planted</h3>");
    expect(pub).toContain("<h4>Done</h4>");
    expect(pub).toContain("<em>reeds</em>");
    expect((await new Visitor(h.app).get("/projects/pond/updates.atom")).body).toContain("Reeds planted");
    expect(await audit("project.update")).toHaveLength(1);
  });

  it("residents cannot reach the project pages of the staff console", async () => {
    const res = await signedIn(h, "res@example.org");
    expect((await res.get("/admin/projects")).statusCode).toBe(403);
    const anon = await new Visitor(h.app).get("/admin/projects/new");
    expect(anon.statusCode).toBe(303);
  });
});
