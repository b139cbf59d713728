import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { linkIn, signedIn, submitSlowly } from "./support.js";

const idea = { title: "A bench by the pond", description: "Somewhere to sit and watch the ducks.", website: "" };

describeEachDb("ideas", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("an idea without an account is published only after its email address is confirmed by the link", async () => {
    const v = new Visitor(h.app);
    const bad = await submitSlowly(h, v, "/ideas/new", "/ideas", { ...idea, title: "Hi", email: "nope" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("at least 5 characters");
    expect(bad.body).toContain("Somewhere to sit and watch the ducks.");
    expect(bad.body).toContain('value="nope"');

    const sent = await submitSlowly(h, v, "/ideas/new", "/ideas", { ...idea, email: "Dee@Example.org" });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe("/ideas/sent");
    expect((await v.get("/ideas")).body).not.toContain(idea.title);
    expect((await v.get("/ideas.atom")).body).not.toContain(idea.title);

    const path = linkIn((await h.mailTo("dee@example.org")).parsed.text ?? "", "/ideas/confirm/");
    const page = await v.get(path);
    expect((await v.get("/ideas")).body).not.toContain(idea.title);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const done = await v.post(path, { _csrf: token });
    expect(done.statusCode).toBe(303);
    const ideaPage = await v.get(done.headers.location as string);
    expect(ideaPage.body).toContain(idea.title);
    expect(ideaPage.body).not.toContain("dee@example.org");
    expect((await v.get("/ideas.atom")).body).toContain(idea.title);
    // The link works once.
    expect((await v.post(path, { _csrf: token })).statusCode).toBe(410);
  });

  it("residents' ideas publish at once; support once, withdrawable, count public; staff adopt it into a project", async () => {
    const ann = await signedIn(h, "ann@example.org");
    const res = await submitSlowly(h, ann, "/ideas/new", "/ideas", idea);
    expect(res.statusCode).toBe(303);
    const ideaPath = res.headers.location as string;
    expect(ideaPath).toMatch(/^\/ideas\/\d+$/);

    const bob = await signedIn(h, "bob@example.org");
    const support = async (v: Visitor, yes: boolean) =>
      submitSlowly(h, v, ideaPath, `${ideaPath}/support`, { support: yes ? "yes" : "no" });
    await support(bob, true);
    await support(bob, true);
    await support(ann, true);
    const anon = new Visitor(h.app);
    const count = async () => /id="supporters">(\d+)</.exec((await anon.get(ideaPath)).body)![1];
    expect(await count()).toBe("2");
    expect((await bob.get(ideaPath)).body).toContain("Withdraw my support");
    await support(bob, false);
    expect(await count()).toBe("1");
    const pub = (await anon.get(ideaPath)).body;
    expect(pub).not.toContain("ann@example.org");
    expect(pub).not.toContain("bob@example.org");

    // A resident cannot set a status.
    const id = ideaPath.split("/")[2]!;
    expect((await bob.get(`/admin/ideas/${id}`)).statusCode).toBe(403);
    const project = await h.app.civic.database.db
      .selectFrom("projects")
      .select(["id", "title"])
      .executeTakeFirstOrThrow();
    const staff = await signedIn(h, "staff@example.org", "moderator");
    expect((await staff.get(ideaPath)).body).toContain(`href="/admin/ideas/${id}"`);
    const staffPage = await staff.get("/admin/ideas?status=open");
    expect(staffPage.body).toContain('class="staff-nav"');
    expect(staffPage.body).toContain(`href="/admin/ideas/${id}"`);
    // Adopting needs a project; the form comes back with what was typed.
    const bad = await submitSlowly(h, staff, `/admin/ideas/${id}`, `/admin/ideas/${id}`, {
      status: "adopted",
      project: "",
      response: "We love it and are building it.",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Choose the project an adopted idea became");
    expect(bad.body).toContain("We love it and are building it.</textarea>");
    const set = await submitSlowly(h, staff, `/admin/ideas/${id}`, `/admin/ideas/${id}`, {
      status: "adopted",
      project: project.id,
      response: "We love it and are building it.",
    });
    expect(set.statusCode).toBe(303);
    const audit = await h.app.civic.database.db
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "idea.status")
      .execute();
    expect(audit.map((a) => a.item_id)).toEqual([id]);
    const after = (await anon.get(ideaPath)).body;
    expect(after).toContain("Adopted");
    expect(after).toContain("We love it and are building it.");
    expect(after).toContain(`/projects/${project.id}`);
    expect((await anon.get(`/projects/${project.id}`)).body).toContain(ideaPath);
    expect((await anon.get("/ideas?status=adopted&sort=supported")).body).toContain(idea.title);
    expect((await anon.get("/ideas?status=done")).body).not.toContain(idea.title);
    expect((await anon.get(ideaPath)).body).toContain(`/report-this/idea/`);
  });
});
