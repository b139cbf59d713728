import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { linkIn, signedIn, submitSlowly } from "./support.js";

describeEachDb("volunteers", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("staff see a sign-up only after its address is confirmed; admins export CSV; the mailed link withdraws", async () => {
    const project = await h.app.civic.database.db
      .selectFrom("projects")
      .select(["id", "title"])
      .executeTakeFirstOrThrow();
    const v = new Visitor(h.app);
    const fields = {
      project: project.id,
      name: "Fay Lee",
      email: "fay@example.org",
      phone: "01234 567890",
      interests: "Gardening",
      availability: "=Weekends",
      website: "",
    };
    const bad = await submitSlowly(h, v, "/volunteer", "/volunteer", { ...fields, email: "x" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="Fay Lee"');
    expect(
      (await submitSlowly(h, v, "/volunteer", "/volunteer", { ...fields, project: `${project.id}|Juggler` }))
        .statusCode,
    ).toBe(400);
    // A project that has finished is no longer offered, and a hand-made post naming it is refused the same way.
    const db = h.app.civic.database.db;
    await db.updateTable("projects").set({ status: "completed" }).where("id", "=", project.id).execute();
    expect((await v.get("/volunteer")).body).not.toContain(`value="${project.id}"`);
    const finished = await submitSlowly(h, v, "/volunteer", "/volunteer", fields);
    expect(finished.statusCode).toBe(400);
    expect(finished.body).toContain("has finished");
    expect(await db.selectFrom("volunteers").select("id").execute()).toHaveLength(0);
    await db.updateTable("projects").set({ status: "active" }).where("id", "=", project.id).execute();
    expect((await submitSlowly(h, v, "/volunteer", "/volunteer", fields)).statusCode).toBe(200);

    const path = linkIn((await h.mailTo("fay@example.org")).parsed.text ?? "", "/volunteer/confirm/");
    const moderator = await signedIn(h, "mod@example.org", "moderator");
    expect((await moderator.get("/admin/volunteers")).body).not.toContain("Fay Lee");
    expect((await moderator.get("/admin/volunteers.csv")).statusCode).toBe(403);

    const page = await v.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    expect((await v.post(path, { _csrf: token })).statusCode).toBe(303);
    const list = (await moderator.get("/admin/volunteers")).body;
    expect(list).toContain("Fay Lee");
    expect(list).toContain(project.title);

    const admin = await signedIn(h, "admin@example.org", "admin");
    const csv = await admin.get("/admin/volunteers.csv");
    expect(csv.headers["content-type"]).toContain("text/csv");
    expect(csv.body).toContain('"Fay Lee","fay@example.org"');
    expect(csv.body).toContain(`"'=Weekends"`);
    const exports = await h.app.civic.database.db
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "volunteers.export")
      .execute();
    expect(exports).toHaveLength(1);
    expect(list).toContain('class="staff-nav"');

    const withdraw = /action="(\/volunteer\/withdraw\/[^"]+)"/.exec((await v.get(path)).body)![1]!;
    const t2 = /name="_csrf" value="([^"]+)"/.exec((await v.get(path)).body)![1]!;
    expect((await v.post(withdraw, { _csrf: t2 })).statusCode).toBe(303);
    expect((await moderator.get("/admin/volunteers")).body).not.toContain("Fay Lee");
  });
});
