import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { signInAs } from "../../test/helpers/staff.js";
import { submitReport } from "../reports/submit.js";

describeEachDb("moderation console", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  it("lets moderators decide with a reason, redact (admin restores), and answers bad input with 4xx", async () => {
    const db = t.app.civic.database.db;
    const moderator = await signInAs(t.app, "mod2@example.org", "moderator");
    const admin = await signInAs(t.app, "admin2@example.org", "admin");
    const resident = await signInAs(t.app, "res2@example.org", "resident");
    const { reference } = await submitReport(
      t.app.civic,
      reportSubmission({
        title: "Bin overflowing near 12 Mill Lane",
        reporter: { email: "r@example.org", name: null, phone: null, shareContact: false },
      }),
    );
    expect((await resident.get("/admin/moderation")).statusCode).toBe(403);
    expect((await moderator.get("/admin/ban-list")).statusCode).toBe(403);
    expect((await moderator.get("/admin/moderation")).statusCode).toBe(200);

    const page = "/admin/moderation";
    const missing = await moderator.post(
      "/admin/moderation/decide",
      { kind: "report", id: reference, action: "hide" },
      page,
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain("reason");
    const unknown = await moderator.post(
      "/admin/moderation/decide",
      { kind: "report", id: "ZZZZ-ZZZZ", action: "hide", reason: "x" },
      page,
    );
    expect(unknown.statusCode).toBe(404);
    const badAction = await moderator.post(
      "/admin/moderation/decide",
      { kind: "report", id: reference, action: "explode", reason: "x" },
      page,
    );
    expect(badAction.statusCode).toBe(400);

    const hidden = await moderator.post(
      "/admin/moderation/decide",
      { kind: "report", id: reference, action: "hide", reason: "Names a private person" },
      page,
    );
    expect(hidden.statusCode).toBe(303);
    expect((await t.app.inject(`/reports/${reference}`)).statusCode).toBe(410);
    await moderator.post(
      "/admin/moderation/decide",
      { kind: "report", id: reference, action: "unhide", reason: "Will redact instead" },
      page,
    );

    const edit = `/admin/moderation/reports/${reference}/edit`;
    const redacted = await moderator.post(
      edit,
      { title: "Bin overflowing on Mill Lane", description: "The bin is overflowing.", reason: "House number removed" },
      edit,
    );
    expect(redacted.statusCode).toBe(303);
    const publicPage = await t.app.inject(`/reports/${reference}`);
    expect(publicPage.body).toContain("Bin overflowing on Mill Lane");
    expect(publicPage.body).not.toContain("12 Mill Lane");
    expect(publicPage.body).toContain("Moderated on");
    const row = await db
      .selectFrom("reports")
      .select(["original_title"])
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    expect(row.original_title).toBe("Bin overflowing near 12 Mill Lane");

    const restore = `/admin/moderation/reports/${reference}/restore`;
    expect((await moderator.post(restore, { reason: "try" }, edit)).statusCode).toBe(403);
    expect((await admin.post(restore, { reason: "" }, edit)).statusCode).toBe(400);
    expect((await admin.post(restore, { reason: "Redaction was not needed" }, edit)).statusCode).toBe(303);
    expect((await t.app.inject(`/reports/${reference}`)).body).toContain("Bin overflowing near 12 Mill Lane");

    const audit = await db
      .selectFrom("audit_log")
      .select(["action", "actor_id", "reason"])
      .where("item_id", "=", reference)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["moderation.hide", "moderation.unhide", "moderation.redact", "moderation.restore"]),
    );
    expect(audit.every((a) => a.reason)).toBe(true);
  });

  it("manages the ban list (admins) and suspends accounts from the console", async () => {
    const admin = await signInAs(t.app, "admin3@example.org", "admin");
    const target = await signInAs(t.app, "target@example.org", "resident");
    const bad = await admin.post("/admin/ban-list", { pattern: "not a domain", reason: "x" }, "/admin/ban-list");
    expect(bad.statusCode).toBe(400);
    const added = await admin.post("/admin/ban-list", { pattern: "@Junk.Example", reason: "Spam" }, "/admin/ban-list");
    expect(added.statusCode).toBe(303);
    expect((await admin.get("/admin/ban-list")).body).toContain("junk.example");

    const account = `/admin/moderation/account?email=target%40example.org`;
    expect((await admin.get(account)).statusCode).toBe(200);
    const noReason = await admin.post("/admin/moderation/account/suspend", { account: target.accountId }, account);
    expect(noReason.statusCode).toBe(400);
    const suspended = await admin.post(
      "/admin/moderation/account/suspend",
      { account: target.accountId, reason: "Repeated abuse", hide_content: "yes" },
      account,
    );
    expect(suspended.statusCode).toBe(303);
    expect((await target.get("/account")).statusCode).not.toBe(200);
    const unknown = await admin.post("/admin/moderation/account/suspend", { account: "nobody", reason: "x" }, account);
    expect(unknown.statusCode).toBe(404);
  });
});
