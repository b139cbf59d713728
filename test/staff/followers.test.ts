import { afterAll, beforeAll, expect, it } from "vitest";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { type AccountsHarness, accountsHarness, makeReport, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** "Get updates by email": double opt-in, the same update mails as the reporter, one-click unsubscribe (RFC 8058). */
describeEachDb("following a report by email", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let reference: string;
  const db = () => h.app.civic.database.db;
  const page = () => `/reports/${reference}`;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    reference = (await makeReport(h.app, { email: "reporter@example.org" })).reference;
    await h.mailTo("reporter@example.org"); // the confirmation of the report
  });
  afterAll(async () => h?.close());

  /** Opens the report page as an anonymous visitor, waits like a person, and sends the follow form. */
  async function follow(email: string, extra: Record<string, string> = {}, wait = 4_000) {
    const res = await h.app.inject({ method: "GET", url: page() });
    expect(res.headers["set-cookie"]).toBeUndefined();
    const csrf = tokenIn(res.body);
    h.advance(wait);
    const payload = new URLSearchParams({ _csrf: csrf, email, website: "", ...extra }).toString();
    const post = () =>
      h.app.inject({
        method: "POST",
        url: `${page()}/follow`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload,
      });
    return { first: await post(), again: post };
  }

  const confirmMails = async () =>
    (await db().selectFrom("outbox").select("to_address").where("kind", "=", "report-follow-confirm").execute()).length;

  async function changeStatus(status: string, expected: string, note: string) {
    const admin = `/admin/reports/${reference}`;
    const res = await moderator.post(`${admin}/status`, { status, note, expected }, admin);
    expect(res.statusCode).toBe(303);
  }

  it("offers the form on the public page and refuses bad input with the form again", async () => {
    const res = await h.app.inject({ method: "GET", url: page() });
    expect(res.body).toContain("Get updates by email");
    expect(res.body).toContain(`action="/reports/${reference}/follow"`);

    const bad = (await follow("not an address")).first;
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Enter an email address");
    expect(bad.body).toContain('value="not an address"');

    const quick = (await follow("quick@example.org", {}, 0)).first;
    expect(quick.statusCode).toBe(400);
    expect(quick.body).toContain("That was very quick");

    const bot = (await follow("bot@example.org", { website: "http://spam.example" })).first;
    expect(bot.statusCode).toBe(400);

    const huge = (await follow(`${"a".repeat(5000)}@example.org`)).first;
    expect(huge.statusCode).toBe(400);
    expect(huge.body).toContain("Enter an email address");
    const nul = (await follow("fan\u0000@example.org")).first;
    expect(nul.statusCode).toBe(400);
    const json = await h.app.inject({
      method: "POST",
      url: `${page()}/follow`,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ email: ["x@example.org"], _csrf: { nested: true } }),
    });
    expect(json.statusCode).toBeGreaterThanOrEqual(400);
    expect(json.statusCode).toBeLessThan(500);

    const unknown = await h.app.inject({ method: "POST", url: "/reports/ZZZZ-ZZZZ/follow", payload: {} });
    expect(unknown.statusCode).toBeLessThan(500);
    expect(await confirmMails()).toBe(0);
  });

  it("mails a confirmation link whose page needs a button press; a replayed form sends nothing more", async () => {
    const { first, again } = await follow("Fan@Example.org");
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("Check your email");
    const replay = await again();
    expect(replay.statusCode).toBe(200);
    expect(replay.body).toContain("Check your email");
    expect(await confirmMails()).toBe(1);

    const mail = await h.mailTo("fan@example.org");
    expect(mail.parsed.subject).toBe(`Confirm updates on report ${reference}`);
    const link = /http:\/\/civic\.test(\/reports\/updates\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "");
    expect(link).not.toBeNull();
    const confirmPage = await h.app.inject({ method: "GET", url: link![1]! });
    expect(confirmPage.statusCode).toBe(200);
    // Opening the link (as a mail scanner does) confirms nothing.
    const row = await db().selectFrom("report_followers").selectAll().executeTakeFirstOrThrow();
    expect(row.confirmed_at).toBeNull();
    expect(row.email).toBe("fan@example.org");

    const confirmed = await h.app.inject({
      method: "POST",
      url: link![1]!,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: tokenIn(confirmPage.body) }).toString(),
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain("You will get the updates");
    expect((await h.app.inject({ method: "GET", url: link![1]! })).statusCode).toBe(410);

    // Asking again gives the same answer and no new mail: the form does not tell who follows.
    const twice = (await follow("fan@example.org")).first;
    expect(twice.body).toContain("Check your email");
    expect(await confirmMails()).toBe(1);
    const publicPage = await h.app.inject({ method: "GET", url: page() });
    expect(publicPage.body).not.toContain("fan@example.org");
  });

  it("mails followers and the reporter at a status change, each with a working one-click unsubscribe", async () => {
    await changeStatus("investigating", "open", "A volunteer is looking into it.");
    const reporterBefore = h.smtp.received.filter((m) => m.to.includes("reporter@example.org")).length;
    const toFan = await h.mailTo("fan@example.org");
    await h.smtp.waitFor(h.smtp.received.length);
    const toReporters = h.smtp.received.filter((m) => m.to.includes("reporter@example.org"));
    expect(toReporters).toHaveLength(reporterBefore + 1);
    const toReporter = toReporters[toReporters.length - 1]!;
    for (const mail of [toFan, toReporter]) {
      expect(mail.parsed.subject).toBe(`Update on report ${reference}`);
      expect(mail.parsed.text).toContain("A volunteer is looking into it.");
      expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    }
    const url = (mail: typeof toFan) => {
      const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, " ");
      const header = /^List-Unsubscribe: (.+?)\r?$/m.exec(unfolded)![1]!;
      const m = /^<(https?:\/\/[^>]+)>$/.exec(header.trim());
      if (!m) throw new Error(`List-Unsubscribe is not one address: ${header}`);
      const path = new URL(m[1]!).pathname;
      expect(path).toMatch(/^\/reports\/updates\/unsubscribe\//);
      return path;
    };
    const fanUrl = url(toFan);
    const reporterUrl = url(toReporter);
    expect(fanUrl).not.toBe(reporterUrl);

    // A GET only shows a button; nothing stops.
    const shown = await h.app.inject({ method: "GET", url: fanUrl });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain("Stop the updates");
    expect(await db().selectFrom("report_followers").selectAll().execute()).toHaveLength(1);

    const forged = await h.app.inject({
      method: "POST",
      url: `${fanUrl.slice(0, -3)}AAA`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(forged.statusCode).toBe(404);

    for (const target of [fanUrl, reporterUrl]) {
      const res = await h.app.inject({
        method: "POST",
        url: target,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: "List-Unsubscribe=One-Click",
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain("The updates are stopped");
    }
    expect(await db().selectFrom("report_followers").selectAll().execute()).toHaveLength(0);
    const report = await db()
      .selectFrom("reports")
      .select("updates_stopped_at")
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    expect(report.updates_stopped_at).not.toBeNull();

    const before = await db().selectFrom("outbox").select("id").where("kind", "=", "report-status").execute();
    await changeStatus("in_progress", "investigating", "Work has started.");
    const after = await db().selectFrom("outbox").select("id").where("kind", "=", "report-status").execute();
    expect(after.length).toBe(before.length);
  });

  it("lists a follower's reports in their data download and erases them with their data", async () => {
    const { first } = await follow("erase-me@example.org");
    expect(first.statusCode).toBe(200);
    const source = personalDataSources(h.app.civic).find((s) => s.key === "reportFollowing")!;
    const ctx = sourceContext(h.app.civic);
    const subject = { accountId: null, email: "erase-me@example.org" };
    const collected = await source.collect(ctx, subject);
    expect(collected.data).toEqual([expect.objectContaining({ report: reference, email: "erase-me@example.org" })]);
    await source.erase(ctx, subject, { removePublicContent: false });
    expect(await db().selectFrom("report_followers").selectAll().execute()).toHaveLength(0);
  });

  it("stops mailing followers while the report is hidden by moderation (its page is 410 Gone)", async () => {
    const report = await db()
      .selectFrom("reports")
      .select("id")
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    const at = h.app.civic.now().toISOString();
    await db()
      .insertInto("report_followers")
      .values({
        report_id: report.id,
        email: "quiet@example.org",
        token_hash: "x".repeat(43),
        created_at: at,
        confirmed_at: at,
      })
      .execute();
    const toQuiet = async () =>
      (
        await db()
          .selectFrom("outbox")
          .select("id")
          .where("kind", "=", "report-status")
          .where("to_address", "=", "quiet@example.org")
          .execute()
      ).length;
    await db().updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", reference).execute();
    await changeStatus("action_scheduled", "in_progress", "Booked for next week.");
    expect(await toQuiet()).toBe(0);
    await db().updateTable("reports").set({ visibility: "public" }).where("reference", "=", reference).execute();
    await changeStatus("fixed", "action_scheduled", "Done.");
    expect(await toQuiet()).toBe(1);
    await db().deleteFrom("report_followers").where("email", "=", "quiet@example.org").execute();
  });

  it("a follower without an account stops the updates from their personal data page (/my-data)", async () => {
    const post = (url: string, fields: Record<string, string>) =>
      h.app.inject({
        method: "POST",
        url,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      });
    expect((await follow("leaver@example.org")).first.statusCode).toBe(200);
    const confirm = /http:\/\/civic\.test(\/reports\/updates\/confirm\/[\w-]{43})/.exec(
      (await h.mailTo("leaver@example.org")).parsed.text ?? "",
    )![1]!;
    const confirmPage = await h.app.inject({ method: "GET", url: confirm });
    expect((await post(confirm, { _csrf: tokenIn(confirmPage.body) })).statusCode).toBe(200);

    const ask = await h.app.inject({ method: "GET", url: "/my-data" });
    expect((await post("/my-data", { _csrf: tokenIn(ask.body), email: "leaver@example.org" })).statusCode).toBe(200);
    const open = /http:\/\/civic\.test(\/my-data\/open\/([\w-]{43}))/.exec(
      (await h.mailTo("leaver@example.org")).parsed.text ?? "",
    )!;
    const mine = await h.app.inject({ method: "GET", url: open[1]! });
    expect(mine.statusCode).toBe(200);
    expect(mine.body).toContain(`Email me the public updates on report ${reference}`);
    const consent = /name="consent" value="([^"]+)"/.exec(mine.body)![1]!;
    const withdrawn = await post("/my-data/withdraw", { _csrf: tokenIn(mine.body), token: open[2]!, consent });
    expect(withdrawn.statusCode).toBe(303);
    expect(withdrawn.headers.location).toBe(open[1]);
    const after = await h.app.inject({ method: "GET", url: open[1]! });
    expect(after.body).not.toContain(`Email me the public updates on report ${reference}`);
    expect(
      await db().selectFrom("report_followers").select("id").where("email", "=", "leaver@example.org").execute(),
    ).toHaveLength(0);
  });

  it("does not accept followers for a hidden report", async () => {
    const res = await h.app.inject({ method: "GET", url: page() });
    const csrf = tokenIn(res.body);
    await db().updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", reference).execute();
    h.advance(4_000);
    const post = await h.app.inject({
      method: "POST",
      url: `${page()}/follow`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: csrf, email: "late@example.org", website: "" }).toString(),
    });
    expect(post.statusCode).toBe(404);
    expect(await db().selectFrom("report_followers").selectAll().execute()).toHaveLength(0);
  });
});
