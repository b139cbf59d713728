import { afterAll, beforeAll, expect, it } from "vitest";
import { recordAudit } from "../../src/core/staff/audit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** The audit log shows each row's details as labelled values in words, never as raw JSON (issue 36). */
describeEachDb("audit log details", (dialect) => {
  let t: TestApp;
  let moderator: SignedIn;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    const db = t.app.civic.database.db;
    const at = new Date("2026-11-24T10:00:00.000Z");
    const row = (itemId: string, action: string, itemType: string, details: Record<string, unknown>) =>
      recordAudit(db, { actorId: moderator.accountId, action, itemType, itemId, details, at });
    await row("WSM-1", "report.status", "report", { from: "open", to: "not_responsible" });
    await row("7", "department.update", "department", {
      from: { name: "Roads", email: "roads@example.org" },
      to: { name: "Highways", email: "highways@example.org" },
    });
    await row("8", "something.new", "widget", {
      scheduledAt: "2026-12-01T09:30:00.000Z",
      tags: ["a", "b"],
      text_changed: false,
      nothing: null,
      "<b>odd key</b>": "<script>alert(1)</script>",
    });
    await row("9", "account.role", "account", {});
  });
  afterAll(async () => t?.close());

  it("labels each value, says statuses in words and dates readably, and shows unknown keys by name", async () => {
    const res = await moderator.get("/admin/log");
    expect(res.statusCode).toBe(200);
    const body = res.body;
    expect(body).not.toContain("&quot;from&quot;");
    expect(body).not.toContain('"from":');
    expect(body).not.toMatch(/<code>\{/);
    expect(body).toContain("<dt>From</dt><dd>Open</dd><dt>To</dt><dd>Not the council's responsibility</dd>");
    expect(body).toMatch(/<dt>From<\/dt><dd><dl class="audit-details"><dt>Name<\/dt><dd>Roads<\/dd>/);
    expect(body).toContain("<dt>Email address</dt><dd>highways@example.org</dd>");
    expect(body).toContain("<dt>Scheduled at</dt><dd>1 Dec 2026, 09:30 UTC</dd>");
    expect(body).toContain("<dt>Tags</dt><dd>a, b</dd>");
    expect(body).toContain("<dt>Text changed</dt><dd>No</dd>");
    expect(body).toContain("<dt>Nothing</dt><dd>none</dd>");
    // What a feature wrote is text, escaped, never markup.
    expect(body).toContain("&lt;script>alert(1)&lt;/script>");
    expect(body).not.toContain("<script>alert(1)");
  });
});
