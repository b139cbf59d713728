import { afterAll, beforeAll, expect, it } from "vitest";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** Staff triage actions: assignment (and the inbox filter), category change with re-forwarding, forward again, duplicates. */
describeEachDb("staff triage actions", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let admin: SignedIn;
  const db = () => h.app.civic.database.db;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    admin = await signInAs(h.app, "admin@example.org", "admin");
  });
  afterAll(async () => h?.close());

  const audit = (action: string) =>
    db().selectFrom("audit_log").selectAll().where("action", "=", action).orderBy("id").execute();
  const report = (reference: string) =>
    db().selectFrom("reports").selectAll().where("reference", "=", reference).executeTakeFirstOrThrow();
  const act = (who: SignedIn, reference: string, name: string, fields: Record<string, string>) =>
    who.post(`/admin/reports/${reference}/${name}`, fields, `/admin/reports/${reference}`);

  it("assigns a report to a staff member and filters the inbox by assignee, including me", async () => {
    const { reference } = await makeReport(h.app, { email: null });
    const other = (await makeReport(h.app, { email: null })).reference;
    const res = await act(moderator, reference, "assign", { assignee: admin.accountId, expected: "" });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/reports/${reference}?done=assign`);
    expect((await report(reference)).assigned_to).toBe(admin.accountId);
    expect((await moderator.get(`/admin/reports/${reference}`)).body).toContain("admin@example.org");

    const mine = await admin.get("/admin/reports?assigned=me");
    expect(mine.body).toContain(`/admin/reports/${reference}"`);
    expect(mine.body).not.toContain(`/admin/reports/${other}"`);
    expect((await moderator.get("/admin/reports?assigned=me")).body).toContain("No reports match.");
    const nobody = await moderator.get("/admin/reports?assigned=none");
    expect(nobody.body).toContain(`/admin/reports/${other}"`);
    expect(nobody.body).not.toContain(`/admin/reports/${reference}"`);
    expect((await moderator.get(`/admin/reports?assigned=${admin.accountId}`)).body).toContain(reference);

    const stale = await act(moderator, reference, "assign", { assignee: moderator.accountId, expected: "" });
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain("changed the assignment since you opened the page");
    const resident = await signInAs(h.app, "resident@example.org", "resident");
    const notStaff = await act(moderator, reference, "assign", {
      assignee: resident.accountId,
      expected: admin.accountId,
    });
    expect(notStaff.statusCode).toBe(400);
    expect(notStaff.body).toContain("Choose a staff member from the list.");
    const unassign = await act(moderator, reference, "assign", { assignee: "", expected: admin.accountId });
    expect(unassign.statusCode).toBe(303);
    expect((await report(reference)).assigned_to).toBeNull();

    const rows = [...(await audit("report.assign")), ...(await audit("report.unassign"))];
    expect(rows.map((r) => [r.actor_id, r.item_id, JSON.parse(r.details)])).toEqual([
      [moderator.accountId, reference, { from: null, to: admin.accountId }],
      [moderator.accountId, reference, { from: admin.accountId, to: null }],
    ]);
  });

  it("changes the category to a current one and forwards the report to its department", async () => {
    const { reference } = await makeReport(h.app, { email: null });
    await h.mailTo("wrenvale-highways@example.org"); // the first forwarding
    await db()
      .updateTable("categories")
      .set({ retired_at: new Date().toISOString() })
      .where("code", "=", "road_sign")
      .execute();
    const view = await moderator.get(`/admin/reports/${reference}`);
    expect(view.body).toContain('value="streetlight"');
    expect(view.body).not.toContain('value="road_sign"');

    const retired = await act(moderator, reference, "category", { category: "road_sign", expected: "pothole" });
    expect(retired.statusCode).toBe(400);
    expect(retired.body).toContain("Choose a category from the list.");
    const unknown = await act(moderator, reference, "category", { category: "no\u0000such", expected: "pothole" });
    expect(unknown.statusCode).toBe(400);
    const same = await act(moderator, reference, "category", { category: "pothole", expected: "pothole" });
    expect(same.body).toContain("in this category already");

    const res = await act(moderator, reference, "category", {
      category: "streetlight",
      expected: "pothole",
      category_reason: "It is about the lamp post, not the road.",
    });
    expect(res.statusCode).toBe(303);
    const mail = await h.mailTo("wrenvale-streetlighting@example.org");
    expect(mail.parsed.subject).toContain(reference);
    expect(mail.parsed.text).toContain("Deep hole on the corner.");
    const row = await report(reference);
    expect(row.category_code).toBe("streetlight");
    expect(row.forwarded_to).toBe("wrenvale-streetlighting@example.org");
    const [entry] = await audit("report.category");
    expect(entry!.reason).toBe("It is about the lamp post, not the road.");
    expect(JSON.parse(entry!.details)).toEqual({ from: "pothole", to: "streetlight", forwarded: true });

    const stale = await act(moderator, reference, "category", { category: "pavement", expected: "pothole" });
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain("category changed since you opened the page");

    const again = await act(moderator, reference, "forward", { forward_reason: "The council lost it." });
    expect(again.statusCode).toBe(303);
    const second = await h.mailTo("wrenvale-streetlighting@example.org");
    expect(second.parsed.subject).toContain(reference);
    expect((await audit("report.forward")).map((r) => r.reason)).toEqual(["The council lost it."]);

    await act(moderator, reference, "category", { category: "play_area", expected: "streetlight" });
    const none = await act(moderator, reference, "forward", {});
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain("no council department");
    expect(await audit("report.forward")).toHaveLength(1);
  });

  it("marks a duplicate: closed with a public update naming the original, linked both ways, chains refused", async () => {
    const original = (await makeReport(h.app, { email: null })).reference;
    const duplicate = (await makeReport(h.app, { email: "second@example.org" })).reference;
    await h.mailTo("second@example.org");
    const third = (await makeReport(h.app, { email: null })).reference;
    const hidden = (await makeReport(h.app, { email: null })).reference;
    await db().updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", hidden).execute();
    const mark = (reference: string, originalRef: string, expected = "open") =>
      act(moderator, reference, "duplicate", { original: originalRef, expected, duplicate_note: "" });

    const self = await mark(duplicate, duplicate.toLowerCase());
    expect(self.statusCode).toBe(400);
    expect(self.body).toContain("cannot be a duplicate of itself");
    expect((await mark(duplicate, "ZZZZ-ZZZZ")).body).toContain("There is no report with the reference ZZZZ-ZZZZ");
    expect((await mark(duplicate, "<script>")).body).toContain("Enter a reference like");
    expect((await mark(duplicate, hidden)).body).toContain("is hidden or removed");

    const res = await act(moderator, duplicate, "duplicate", {
      original,
      expected: "open",
      duplicate_note: "Same pothole, reported twice.",
    });
    expect(res.statusCode).toBe(303);
    const row = await report(duplicate);
    expect(row.status).toBe("duplicate");
    expect(row.duplicate_of).toBe((await report(original)).id);
    const mail = await h.mailTo("second@example.org");
    expect(mail.parsed.text).toContain(`Duplicate of report ${original}. Same pothole, reported twice.`);

    const dupPage = await h.app.inject({ method: "GET", url: `/reports/${duplicate}` });
    expect(dupPage.body).toContain(`href="/reports/${original}"`);
    expect(dupPage.body).toContain(`Duplicate of report ${original}.`);
    const origPage = await h.app.inject({ method: "GET", url: `/reports/${original}` });
    expect(origPage.body).toContain(`href="/reports/${duplicate}"`);
    expect((await moderator.get(`/admin/reports/${original}`)).body).toContain(`href="/admin/reports/${duplicate}"`);

    const chain = await mark(third, duplicate);
    expect(chain.body).toContain(`Report ${duplicate} is itself a duplicate of ${original}`);
    const cycle = await mark(original, third);
    expect(cycle.body).toContain("Other reports are duplicates of this one");
    const closed = await mark(duplicate, third, "duplicate");
    expect(closed.body).toContain("cannot be marked as a duplicate");
    const stale = await mark(third, original, "fixed");
    expect(stale.body).toContain("status changed since you opened the page");
    const unknown = await moderator.post("/admin/reports/ZZZZ-ZZZZ/duplicate", { original }, `/admin/reports/${third}`);
    expect(unknown.statusCode).toBe(404);

    const rows = await audit("report.duplicate");
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.details)).toEqual({ original, from: "open" });

    // Reopening the duplicate removes the link.
    const page = `/admin/reports/${duplicate}`;
    await moderator.post(
      `${page}/status`,
      { status: "open", note: "Not the same after all.", expected: "duplicate" },
      page,
    );
    expect((await report(duplicate)).duplicate_of).toBeNull();
    const after = await h.app.inject({ method: "GET", url: `/reports/${original}` });
    expect(after.body).not.toContain(`href="/reports/${duplicate}"`);
  });
});
