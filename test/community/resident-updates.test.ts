import { afterAll, beforeAll, expect, it } from "vitest";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { purgeUnconfirmed } from "../../src/core/jobs/retention.js";
import { addBan } from "../../src/moderation/ban-list.js";
import { type AccountsHarness, accountsHarness, makeReport, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * Updates from residents (issue 36): signed in (published at once) or with an address confirmed by an emailed link
 * (published only when the link's page is POSTed), through the one path, marked in the history and the feeds,
 * mailed to the reporter and the followers over real SMTP, never in Open311's status_notes, moderated like reports.
 */
describeEachDb("updates from residents", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let resident: SignedIn;
  let reference: string;
  const db = () => h.app.civic.database.db;
  const page = () => `/reports/${reference}`;
  const form = "application/x-www-form-urlencoded";

  beforeAll(async () => {
    h = await accountsHarness(dialect, { AUTO_HIDE_FLAGS: "1", RATE_LIMIT_WRITE_MAX: "1000" });
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    resident = await signInAs(h.app, "neighbour@example.org", "resident");
    reference = (await makeReport(h.app, { email: "reporter@example.org" })).reference;
    await h.mailTo("reporter@example.org"); // the confirmation of the report
    // A confirmed follower.
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
        email: "fan@example.org",
        token_hash: "f".repeat(43),
        created_at: at,
        confirmed_at: at,
      })
      .execute();
  });
  afterAll(async () => h?.close());

  /** Opens the report page (as `who`, or anonymously), waits like a person, and sends the update form. */
  async function send(fields: Record<string, string>, who?: SignedIn, opts: { wait?: number; ref?: string } = {}) {
    const at = `/reports/${opts.ref ?? reference}`;
    const headers: Record<string, string> = who ? { cookie: who.cookie } : {};
    const res = await h.app.inject({ method: "GET", url: at, headers });
    const csrf = tokenIn(res.body);
    h.advance(opts.wait ?? 4_000);
    const payload = new URLSearchParams({ _csrf: csrf, website: "", ...fields }).toString();
    const post = () =>
      h.app.inject({
        method: "POST",
        url: `${at}/update`,
        headers: { ...headers, "content-type": form, origin: "http://civic.test" },
        payload,
      });
    return { first: await post(), again: post };
  }

  const updates = async () =>
    db()
      .selectFrom("report_updates")
      .innerJoin("reports", "reports.id", "report_updates.report_id")
      .select([
        "report_updates.id",
        "report_updates.note",
        "report_updates.author_kind",
        "report_updates.event",
        "report_updates.author_account_id",
        "report_updates.author_email",
      ])
      .where("reports.reference", "=", reference)
      .where("report_updates.event", "=", "update")
      .orderBy("report_updates.id")
      .execute();

  const statusNotes = async () => {
    const res = await h.app.inject({
      method: "GET",
      url: `/api/v2/requests.json?service_request_id=${reference}`,
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { status_notes: string | null }[])[0]!.status_notes;
  };

  function linkIn(text: string): string {
    const m = /http:\/\/civic\.test(\/reports\/updates\/publish\/[A-Za-z0-9_-]{43})/.exec(text);
    if (!m) throw new Error(`no publish link in:\n${text}`);
    return m[1]!;
  }

  it("offers the form on a public report; a signed-in resident's update is published at once, marked, and mailed", async () => {
    const shown = await h.app.inject({ method: "GET", url: page() });
    expect(shown.body).toContain("Add an update");
    expect(shown.body).toContain(`action="/reports/${reference}/update"`);
    expect(shown.body).toContain('name="email"');
    expect((await resident.get(page())).body).not.toContain('id="update-email"');

    const note = "The hole is now twice as wide after the frost.";
    const { first, again } = await send({ "update-note": note }, resident);
    expect(first.statusCode, first.body).toBe(303);
    const [row] = await updates();
    expect(row).toMatchObject({
      note,
      author_kind: "resident",
      event: "update",
      author_account_id: resident.accountId,
    });
    expect(first.headers.location).toBe(`/reports/${reference}#update-${row!.id}`);
    // A replayed form publishes nothing more and answers the same.
    const replay = await again();
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe(first.headers.location);
    expect(await updates()).toHaveLength(1);

    const after = (await h.app.inject({ method: "GET", url: page() })).body;
    expect(after).toContain(`id="update-${row!.id}"`);
    expect(after).toContain("Update from a resident");
    expect(after).toContain(note);
    expect(after).not.toContain("neighbour@example.org");
    expect(after).toContain(`/report-this/update/${row!.id}`);

    // The reporter and the follower are told, each with a one-click unsubscribe.
    await h.mailTo("reporter@example.org");
    await h.smtp.waitFor(h.smtp.received.length);
    for (const to of ["reporter@example.org", "fan@example.org"]) {
      const mail = h.smtp.received.filter((m) => m.to.includes(to)).at(-1)!;
      expect(mail.parsed.subject).toBe(`Update on report ${reference}`);
      expect(mail.parsed.text).toContain("There is an update from a resident");
      expect(mail.parsed.text).toContain(note);
      expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    }
    // The feeds carry it, marked; Open311's status_notes does not.
    const feed = await h.app.inject({ method: "GET", url: "/reports.atom" });
    expect(feed.body).toContain(`Update from a resident`);
    expect(feed.body).toContain(note);
    expect(await statusNotes()).toBeNull();
    const admin = `/admin/reports/${reference}`;
    const staffNote = "A volunteer is looking into it.";
    expect(
      (await moderator.post(`${admin}/status`, { status: "investigating", note: staffNote, expected: "open" }, admin))
        .statusCode,
    ).toBe(303);
    expect(await statusNotes()).toBe(staffNote);
    await send({ "update-note": "Still there this morning." }, resident);
    expect(await statusNotes()).toBe(staffNote);
    const history = (await h.app.inject({ method: "GET", url: page() })).body;
    expect(history).toContain("Update from the volunteers");
  });

  it("an update sent with an address waits unpublished until the link's page is POSTed; a replayed confirm is refused", async () => {
    const note = "Someone has put a cone in it.";
    const { first, again } = await send({ "update-note": note, email: "Walker@Example.org" });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("Check your email");
    expect((await again()).body).toContain("Check your email");
    const waiting = await db().selectFrom("report_update_requests").selectAll().execute();
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.email).toBe("walker@example.org");
    expect((await updates()).map((u) => u.note)).not.toContain(note);
    expect((await h.app.inject({ method: "GET", url: page() })).body).not.toContain(note);

    const mail = await h.mailTo("walker@example.org");
    expect(mail.parsed.subject).toBe(`Publish your update on report ${reference}`);
    const link = linkIn(mail.parsed.text ?? "");
    // Opening the link (as a mail scanner does) publishes nothing.
    const linkPage = await h.app.inject({ method: "GET", url: link });
    expect(linkPage.statusCode).toBe(200);
    expect(linkPage.body).toContain(note);
    expect((await updates()).map((u) => u.note)).not.toContain(note);

    const post = (csrf: string) =>
      h.app.inject({
        method: "POST",
        url: link,
        headers: { "content-type": form },
        payload: `_csrf=${encodeURIComponent(csrf)}`,
      });
    const done = await post(tokenIn(linkPage.body));
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Thank you for your update");
    const published = (await updates()).find((u) => u.note === note)!;
    expect(published).toMatchObject({
      author_kind: "resident",
      author_email: "walker@example.org",
      author_account_id: null,
    });
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(0);
    expect((await h.app.inject({ method: "GET", url: page() })).body).toContain(note);

    const replay = await post(tokenIn(linkPage.body));
    expect(replay.statusCode).toBe(410);
    expect((await h.app.inject({ method: "GET", url: link })).statusCode).toBe(410);
    expect((await updates()).filter((u) => u.note === note)).toHaveLength(1);
  });

  it("marks the reporter's own update, sent with the report's address, as the reporter's", async () => {
    const note = "I reported this: it is getting worse.";
    await send({ "update-note": note, email: "reporter@example.org" });
    const link = linkIn((await h.mailTo("reporter@example.org")).parsed.text ?? "");
    const linkPage = await h.app.inject({ method: "GET", url: link });
    const done = await h.app.inject({
      method: "POST",
      url: link,
      headers: { "content-type": form },
      payload: `_csrf=${encodeURIComponent(tokenIn(linkPage.body))}`,
    });
    expect(done.statusCode).toBe(200);
    expect((await updates()).find((u) => u.note === note)?.author_kind).toBe("reporter");
    expect((await h.app.inject({ method: "GET", url: page() })).body).toContain("Update from the reporter");
  });

  it("refuses hostile input with a clear message, never a 5xx", async () => {
    const empty = (await send({ "update-note": "   ", email: "x@example.org" })).first;
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain("Enter the text of your update");
    const huge = (await send({ "update-note": "a".repeat(50_000), email: "x@example.org" })).first;
    expect(huge.statusCode).toBe(400);
    expect(huge.body).toContain("at most 2,000 characters");
    const noEmail = (await send({ "update-note": "Fine text" })).first;
    expect(noEmail.statusCode).toBe(400);
    expect(noEmail.body).toContain("Enter an email address");
    expect(noEmail.body).toContain("Fine text");
    const control = (await send({ "update-note": "bad\u0000text", email: "x@example.org" })).first;
    expect(control.statusCode).toBe(400);
    const quick = (await send({ "update-note": "Fast", email: "x@example.org" }, undefined, { wait: 0 })).first;
    expect(quick.statusCode).toBe(400);
    expect(quick.body).toContain("That was very quick");
    const bot = (await send({ "update-note": "Spam", email: "x@example.org", website: "http://spam.example" })).first;
    expect(bot.statusCode).toBe(400);
    const json = await h.app.inject({
      method: "POST",
      url: `${page()}/update`,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ "update-note": ["x"], _csrf: { nested: true } }),
    });
    expect(json.statusCode).toBeGreaterThanOrEqual(400);
    expect(json.statusCode).toBeLessThan(500);
    // Forged ids: an unknown report, a malformed reference, a forged link token.
    for (const url of ["/reports/ZZZZ-ZZZZ/update", `/reports/${"x".repeat(200)}/update`]) {
      const res = await h.app.inject({
        method: "POST",
        url,
        headers: { "content-type": form },
        payload: "update-note=x",
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    const forged = `/reports/updates/publish/${"A".repeat(43)}`;
    expect((await h.app.inject({ method: "GET", url: forged })).statusCode).toBe(410);
    const forgedPost = await h.app.inject({
      method: "POST",
      url: forged,
      headers: { "content-type": form },
      payload: "",
    });
    expect(forgedPost.statusCode).toBeLessThan(500);
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(0);
  });

  it("refuses updates to a hidden report, also when its link is confirmed after it was hidden", async () => {
    const other = (await makeReport(h.app, { email: null })).reference;
    await send({ "update-note": "Written before it was hidden.", email: "late@example.org" }, undefined, {
      ref: other,
    });
    const link = linkIn((await h.mailTo("late@example.org")).parsed.text ?? "");
    const linkPage = await h.app.inject({ method: "GET", url: link });
    await db().updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", other).execute();
    const done = await h.app.inject({
      method: "POST",
      url: link,
      headers: { "content-type": form },
      payload: `_csrf=${encodeURIComponent(tokenIn(linkPage.body))}`,
    });
    expect(done.statusCode).toBe(410);
    expect(done.body).toContain("cannot take updates");
    const direct = await h.app.inject({
      method: "POST",
      url: `/reports/${other}/update`,
      headers: { cookie: resident.cookie, "content-type": form, origin: "http://civic.test" },
      payload: new URLSearchParams({ _csrf: await resident.token(), "update-note": "Hidden?" }).toString(),
    });
    expect(direct.statusCode).toBe(410);
    expect(direct.body).toContain("no longer shown");
    expect((await h.app.inject({ method: "GET", url: `/reports/${other}/update` })).statusCode).toBe(410);
    const notes = await db()
      .selectFrom("report_updates")
      .innerJoin("reports", "reports.id", "report_updates.report_id")
      .select("note")
      .where("reports.reference", "=", other)
      .where("event", "=", "update")
      .execute();
    expect(notes).toHaveLength(0);
  });

  it("drops updates from a banned address or account with the usual answer", async () => {
    await addBan(db(), { pattern: "troll@example.net", reason: "Abuse", by: null }, h.app.civic.now());
    const before = await db().selectFrom("outbox").select("id").where("kind", "=", "report-update-confirm").execute();
    const res = (await send({ "update-note": "Troll text", email: "troll@example.net" })).first;
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Check your email");
    const after = await db().selectFrom("outbox").select("id").where("kind", "=", "report-update-confirm").execute();
    expect(after.length).toBe(before.length);
    const banned = await signInAs(h.app, "troll@example.net", "resident");
    const signed = (await send({ "update-note": "Signed troll text" }, banned)).first;
    expect(signed.statusCode).toBe(303);
    expect((await updates()).map((u) => u.note)).not.toContain("Signed troll text");
  });

  it("a flag hides a resident's update; a moderator's hide strikes its author", async () => {
    const writer = await signInAs(h.app, "writer@example.org", "resident");
    await send({ "update-note": "Rude words here." }, writer);
    const row = (await updates()).find((u) => u.note === "Rude words here.")!;
    // An independent flagger: a confirmed account a month old.
    const flagger = await signInAs(h.app, "flagger@example.org", "resident");
    const old = new Date(h.app.civic.now().getTime() - 30 * 86_400_000).toISOString();
    await db().updateTable("accounts").set({ created_at: old }).where("id", "=", flagger.accountId).execute();
    const url = `/report-this/update/${row.id}`;
    const flagged = await flagger.post(url, { reason: "abusive", note: "" }, url);
    expect(flagged.statusCode, flagged.body).toBe(200);
    expect((await h.app.inject({ method: "GET", url: page() })).body).not.toContain("Rude words here.");
    const decided = await moderator.post(
      "/admin/moderation/decide",
      { kind: "update", id: String(row.id), action: "hide", reason: "Abusive" },
      "/admin/moderation",
    );
    expect(decided.statusCode).toBe(303);
    const strikes = await db()
      .selectFrom("moderation_strikes")
      .selectAll()
      .where("account_id", "=", writer.accountId)
      .execute();
    expect(strikes.length).toBeGreaterThan(0);
  });

  it("lists a resident's updates in their data download and unlinks them at erasure; unconfirmed ones are purged", async () => {
    const source = personalDataSources(h.app.civic).find((s) => s.key === "reportUpdatesWritten")!;
    const ctx = sourceContext(h.app.civic);
    await send({ "update-note": "Waiting for my link.", email: "walker@example.org" });
    const subject = { accountId: null, email: "walker@example.org" };
    const collected = (await source.collect(ctx, subject)).data as {
      published: { note: string; email: string }[];
      waitingForConfirmation: { note: string }[];
    };
    expect(collected.published).toEqual([
      expect.objectContaining({ note: "Someone has put a cone in it.", email: "walker@example.org" }),
    ]);
    expect(collected.waitingForConfirmation).toEqual([expect.objectContaining({ note: "Waiting for my link." })]);
    const signedIn = (await source.collect(ctx, { accountId: resident.accountId, email: resident.email })).data as {
      published: unknown[];
    };
    expect(signedIn.published.length).toBe(2);

    await source.erase(ctx, subject, { removePublicContent: false });
    const left = await db()
      .selectFrom("report_updates")
      .select("id")
      .where("author_email", "=", "walker@example.org")
      .execute();
    expect(left).toHaveLength(0);
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(0);
    // Still public, unlinked.
    expect((await h.app.inject({ method: "GET", url: page() })).body).toContain("Someone has put a cone in it.");
    await source.erase(ctx, { accountId: resident.accountId, email: resident.email }, { removePublicContent: true });
    expect((await h.app.inject({ method: "GET", url: page() })).body).not.toContain("The hole is now twice as wide");

    // An update never confirmed is deleted by the retention job, with its link.
    await send({ "update-note": "Never confirmed.", email: "forgetful@example.org" });
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(1);
    await purgeUnconfirmed(db(), new Date(h.app.civic.now().getTime() + 32 * 86_400_000));
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(0);
    expect(
      await db().selectFrom("email_links").select("id").where("purpose", "=", "report-update").execute(),
    ).toHaveLength(0);
  });
});
