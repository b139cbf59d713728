import { afterAll, beforeAll, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * Issue 27 #3: staff accounts are never struck or automatically suspended by a lower or equal role, and only admins
 * suspend or unsuspend staff. Everything goes through the staff console's forms, as a moderator would use them.
 */
describeEachDb("sanctions against staff accounts", (dialect) => {
  let t: TestApp;
  let moderator: SignedIn;
  let admin: SignedIn;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { SUSPEND_AFTER_STRIKES: "3" } });
    moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    admin = await signInAs(t.app, "admin@example.org", "admin");
  });
  afterAll(async () => t?.close());

  const account = (id: string) =>
    t.app.civic.database.db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const strikes = async (id: string) =>
    (await t.app.civic.database.db.selectFrom("moderation_strikes").select("id").where("account_id", "=", id).execute())
      .length;
  const reportBy = async (accountId: string) =>
    (await submitReport(t.app.civic, reportSubmission({ accountId }))).reference;
  const decide = (who: SignedIn, reference: string, action = "hide") =>
    who.post("/admin/moderation/decide", { kind: "report", id: reference, action, reason: "Off topic" });

  it("a moderator hiding three of an admin's reports records no strike and does not suspend the admin", async () => {
    const victim = await signInAs(t.app, "second-admin@example.org", "admin");
    for (let i = 0; i < 3; i++) {
      const res = await decide(moderator, await reportBy(victim.accountId));
      expect(res.statusCode, res.body).toBe(303);
    }
    expect(await strikes(victim.accountId)).toBe(0);
    expect((await account(victim.accountId)).suspended_at).toBeNull();
    expect((await victim.get("/account")).statusCode).toBe(200);
  });

  it("a moderator's decisions on another moderator's items record no strike; an admin's do, and may suspend", async () => {
    const other = await signInAs(t.app, "other-moderator@example.org", "moderator");
    await decide(moderator, await reportBy(other.accountId));
    expect(await strikes(other.accountId)).toBe(0);
    for (let i = 0; i < 3; i++) expect((await decide(admin, await reportBy(other.accountId))).statusCode).toBe(303);
    expect(await strikes(other.accountId)).toBe(3);
    expect((await account(other.accountId)).suspended_at).not.toBeNull();
  });

  it("residents are still struck by a moderator's decision", async () => {
    const resident = await signInAs(t.app, "struck-resident@example.org", "resident");
    await decide(moderator, await reportBy(resident.accountId));
    expect(await strikes(resident.accountId)).toBe(1);
  });

  it("only an admin suspends or unsuspends a staff account", async () => {
    const staff = await signInAs(t.app, "third-moderator@example.org", "moderator");
    const suspendAsModerator = await moderator.post("/admin/moderation/account/suspend", {
      account: staff.accountId,
      reason: "Test",
    });
    expect(suspendAsModerator.statusCode).toBe(403);
    expect((await account(staff.accountId)).suspended_at).toBeNull();
    expect(
      (await admin.post("/admin/moderation/account/suspend", { account: staff.accountId, reason: "Test" })).statusCode,
    ).toBe(303);
    expect((await account(staff.accountId)).suspended_at).not.toBeNull();

    const unsuspendAsModerator = await moderator.post("/admin/moderation/account/unsuspend", {
      account: staff.accountId,
      reason: "Let them back",
    });
    expect(unsuspendAsModerator.statusCode).toBe(403);
    expect((await account(staff.accountId)).suspended_at).not.toBeNull();
    expect(
      (await admin.post("/admin/moderation/account/unsuspend", { account: staff.accountId, reason: "Appeal upheld" }))
        .statusCode,
    ).toBe(303);
    expect((await account(staff.accountId)).suspended_at).toBeNull();
  });

  it("a moderator still suspends and unsuspends residents, but not their own account", async () => {
    const resident = await signInAs(t.app, "suspend-me@example.org", "resident");
    const body = { account: resident.accountId, reason: "Abuse" };
    expect((await moderator.post("/admin/moderation/account/suspend", body)).statusCode).toBe(303);
    expect((await moderator.post("/admin/moderation/account/unsuspend", body)).statusCode).toBe(303);
    expect((await account(resident.accountId)).suspended_at).toBeNull();
    const self = await admin.post("/admin/moderation/account/suspend", { account: admin.accountId, reason: "Oops" });
    expect(self.statusCode).toBe(403);
    expect((await account(admin.accountId)).suspended_at).toBeNull();
  });
});
