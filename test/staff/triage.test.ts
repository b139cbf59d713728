import { afterAll, beforeAll, expect, it } from "vitest";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** Staff triage: a public status change reaches the report's page, the Atom feed, Open311 and the reporter's inbox. */
describeEachDb("staff triage", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let reference: string;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    reference = (await makeReport(h.app, { email: "Reporter@Example.org", name: "Rita Reporter" })).reference;
    await h.mailTo("reporter@example.org"); // the confirmation
  });
  afterAll(async () => h?.close());

  const audit = (action: string) =>
    h.app.civic.database.db.selectFrom("audit_log").selectAll().where("action", "=", action).execute();

  it("lists the new report first in the inbox and finds it by reference and by words", async () => {
    const inbox = await moderator.get("/admin/reports");
    expect(inbox.statusCode).toBe(200);
    const firstLink = /href="\/admin\/reports\/([A-Z0-9-]+)"/.exec(inbox.body)?.[1];
    expect(firstLink).toBe(reference);
    const byRef = await moderator.get(`/admin/reports?q=${reference.toLowerCase()}`);
    expect(byRef.body).toContain("1 report, page 1 of 1");
    const byWords = await moderator.get("/admin/reports?q=war%20memorial&status=open");
    expect(byWords.body).toContain(`/admin/reports/${reference}`);
    const none = await moderator.get("/admin/reports?q=%25%25nothing_like_this");
    expect(none.body).toContain("No reports match.");
    const view = await moderator.get(`/admin/reports/${reference}`);
    expect(view.statusCode).toBe(200);
    expect(view.body).not.toContain("reporter@example.org");
    expect(view.body).not.toContain("Rita Reporter");
  });

  it("publishes a status change with its update text everywhere and emails the reporter", async () => {
    const note = "The highways team will fill this pothole on Thursday.";
    const page = `/admin/reports/${reference}`;
    const res = await moderator.post(`${page}/status`, { status: "action_scheduled", note, expected: "open" }, page);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${page}?done=status`);

    const publicPage = await h.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(publicPage.body).toContain(note);
    expect(publicPage.body).toContain("Action scheduled");

    const atom = await h.app.inject({ method: "GET", url: "/reports.atom" });
    expect(atom.body).toContain(note);

    const open311 = await h.app.inject({ method: "GET", url: `/api/v2/requests/${reference}.json` });
    const [request] = open311.json() as { status_notes: string; status: string; updated_datetime: string }[];
    expect(request!.status_notes).toBe(note);
    expect(request!.status).toBe("open");
    expect(request!.updated_datetime).toBeTruthy();

    const mail = await h.mailTo("reporter@example.org");
    expect(mail.parsed.subject).toBe(`Update on report ${reference}`);
    expect(mail.parsed.text).toContain(note);
    expect(mail.parsed.text).toContain(`http://civic.test/reports/${reference}`);

    const rows = await audit("report.status");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor_id).toBe(moderator.accountId);
    expect(rows[0]!.item_id).toBe(reference);
    expect(JSON.parse(rows[0]!.details)).toEqual({ from: "open", to: "action_scheduled" });
    const log = await moderator.get(`/admin/log?item_type=report&item_id=${reference}`);
    expect(log.body).toContain("report.status");
    expect(log.body).toContain("mod@example.org");
  });

  it("refuses illegal transitions, stale forms, missing update text and unknown reports with clear messages", async () => {
    const page = `/admin/reports/${reference}`;
    const illegal = await moderator.post(
      `${page}/status`,
      { status: "open", note: "x", expected: "action_scheduled" },
      page,
    );
    expect(illegal.statusCode).toBe(400);
    expect(illegal.body).toContain("cannot change to");

    const stale = await moderator.post(`${page}/status`, { status: "fixed", note: "Done", expected: "open" }, page);
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain("changed to");
    expect(stale.body).toContain("Done"); // what was typed is kept

    const empty = await moderator.post(
      `${page}/status`,
      { status: "fixed", note: "  ", expected: "action_scheduled" },
      page,
    );
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain("Enter the public update text.");

    const unknown = await moderator.post(
      "/admin/reports/ZZZZ-ZZZZ/status",
      { status: "fixed", note: "x", expected: "open" },
      page,
    );
    expect(unknown.statusCode).toBe(404);
    expect((await moderator.get("/admin/reports/ZZZZ-ZZZZ")).statusCode).toBe(404);
    expect(await audit("report.status")).toHaveLength(1);
  });

  it("keeps private staff notes off the public page and records them in the audit log", async () => {
    const page = `/admin/reports/${reference}`;
    const res = await moderator.post(`${page}/notes`, { body: "Called the highways office; ticket 4411." }, page);
    expect(res.statusCode).toBe(303);
    expect((await moderator.get(page)).body).toContain("ticket 4411");
    const publicPage = await h.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(publicPage.body).not.toContain("ticket 4411");
    const feed = await h.app.inject({ method: "GET", url: "/reports.atom" });
    expect(feed.body).not.toContain("ticket 4411");
    expect(await audit("report.note")).toHaveLength(1);
    const empty = await moderator.post(`${page}/notes`, { body: "" }, page);
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain("Enter the note.");
  });
});
