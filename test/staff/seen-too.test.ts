import { afterAll, beforeAll, expect, it } from "vitest";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { type AccountsHarness, accountsHarness, makeReport, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** "I have seen this too" (issue 36): one mark per person, a public count, no public list of who. */
describeEachDb("I have seen this too", (dialect) => {
  let h: AccountsHarness;
  let resident: SignedIn;
  let moderator: SignedIn;
  let reference: string;
  let hiddenRef: string;
  const db = () => h.app.civic.database.db;
  const page = () => `/reports/${reference}`;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    resident = await signInAs(h.app, "neighbour@example.org", "resident");
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    reference = (await makeReport(h.app, { email: "reporter@example.org" })).reference;
    hiddenRef = (await makeReport(h.app, { email: null })).reference;
    const admin = `/admin/reports/${hiddenRef}`;
    const hidden = await moderator.post(
      `${admin}/moderate`,
      { target: "report", moderation_action: "hide", moderation_reason: "Checking it" },
      admin,
    );
    expect(hidden.statusCode).toBe(303);
  });
  afterAll(async () => h?.close());

  /** Opens the report page anonymously from `ip`, waits like a person, and sends the "seen too" form. */
  async function anonymous(ip: string, extra: Record<string, string> = {}, url = page(), wait = 4_000) {
    const res = await h.app.inject({ method: "GET", url: page(), remoteAddress: ip });
    const csrf = tokenIn(res.body);
    h.advance(wait);
    const payload = new URLSearchParams({ _csrf: csrf, email: "", website: "", ...extra }).toString();
    const post = () =>
      h.app.inject({
        method: "POST",
        url: `${url}/seen`,
        remoteAddress: ip,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload,
      });
    return { first: await post(), again: post };
  }

  const marks = async () => (await db().selectFrom("report_seen").selectAll().execute()).length;
  const seenEvents = async () =>
    await db().selectFrom("report_updates").selectAll().where("event", "=", "seen").orderBy("id").execute();

  it("offers the control on the public page, without a count of anyone yet", async () => {
    const res = await h.app.inject({ method: "GET", url: page() });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Have you seen this too?");
    expect(res.body).toContain(`action="/reports/${reference}/seen"`);
    expect(res.body).toContain("Nobody has said they have seen this too yet.");
  });

  it("counts an anonymous client once a day, and a replayed form not at all", async () => {
    const { first, again } = await anonymous("192.0.2.10");
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("1 person has said they have seen this too.");
    const replay = await again();
    expect(replay.statusCode).toBe(200);
    expect(await marks()).toBe(1);
    // The same client with a new form, the same day: still once.
    const same = (await anonymous("192.0.2.10")).first;
    expect(same.body).toContain("You had said so already");
    expect(await marks()).toBe(1);
    // Another client counts; the same /64 of IPv6 is one client.
    await anonymous("2001:db8:1:2::1");
    await anonymous("2001:db8:1:2::99");
    expect(await marks()).toBe(2);
    // No address is stored: only keyed hashes.
    const rows = await db().selectFrom("report_seen").selectAll().execute();
    for (const r of rows) {
      expect(r.seer).toMatch(/^client:[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(r)).not.toContain("192.0.2.10");
      expect(JSON.stringify(r)).not.toContain("2001:db8");
    }
    // The next day the same client may say so again.
    h.advance(24 * 60 * 60_000);
    await anonymous("192.0.2.10");
    expect(await marks()).toBe(3);
  });

  it("counts an account once, records each mark through the one path as an internal event, and shows no who", async () => {
    const token = await resident.token(page());
    const post = () =>
      h.app.inject({
        method: "POST",
        url: `${page()}/seen`,
        headers: { cookie: resident.cookie, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: token, website: "" }).toString(),
      });
    h.advance(4_000);
    const first = await post();
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("4 people have said they have seen this too.");
    expect((await post()).statusCode).toBe(200);
    const fresh = await resident.token(page());
    h.advance(4_000);
    const again = await h.app.inject({
      method: "POST",
      url: `${page()}/seen`,
      headers: { cookie: resident.cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: fresh, website: "" }).toString(),
    });
    expect(again.body).toContain("You had said so already");
    expect(await marks()).toBe(4);
    const events = await seenEvents();
    expect(events).toHaveLength(4);
    for (const e of events) {
      expect(e.internal).toBe(1);
      expect(e.author_kind).toBe("resident");
      expect(e.event_key).toMatch(/^seen:/);
    }
    expect(events.at(-1)!.author_account_id).toBe(resident.accountId);

    const shown = await h.app.inject({ method: "GET", url: page() });
    expect(shown.body).toContain("4 people have said they have seen this too.");
    expect(shown.body).not.toContain("neighbour@example.org");
    // The internal records are not in the public history.
    const history = /<ol class="report-history">([\s\S]*?)<\/ol>/.exec(shown.body)?.[1] ?? "";
    expect((history.match(/<li/g) ?? []).length).toBe(1);
    expect(shown.body).not.toContain("seen:");
    // The count is in the Atom feed's entry too, never who.
    const atom = await h.app.inject({ method: "GET", url: "/reports.atom" });
    expect(atom.body).toContain("seen too by 4 people");
    expect(atom.body).not.toContain("neighbour@example.org");
  });

  it("counts a confirmed address once: the link opens a page whose button confirms", async () => {
    const asked = (await anonymous("198.51.100.7", { email: "Walker@Example.org" })).first;
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain("Check your email");
    expect(await marks()).toBe(4);
    const mail = await h.mailTo("walker@example.org");
    const link = /http:\/\/civic\.test(\/reports\/seen\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "");
    expect(link).not.toBeNull();
    const opened = await h.app.inject({ method: "GET", url: link![1]! });
    expect(opened.statusCode).toBe(200);
    expect(await marks()).toBe(4); // opening the link changes nothing
    const confirm = () =>
      h.app.inject({
        method: "POST",
        url: link![1]!,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: tokenIn(opened.body) }).toString(),
      });
    const done = await confirm();
    expect(done.statusCode).toBe(200);
    expect(await marks()).toBe(5);
    expect((await confirm()).statusCode).toBe(410);
    expect(await marks()).toBe(5);
    // Asking again with the same address sends nothing more and counts nothing more.
    await anonymous("198.51.100.8", { email: "walker@example.org" });
    expect(
      await db().selectFrom("outbox").select("id").where("kind", "=", "report-seen-confirm").execute(),
    ).toHaveLength(1);
  });

  it("refuses hostile input with a clear message, never a 5xx", async () => {
    const bad = (await anonymous("203.0.113.1", { email: "not an address" })).first;
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Enter an email address");
    expect(bad.body).toContain('value="not an address"');
    const ctrl = (await anonymous("203.0.113.2", { email: "a\u0000b@example.org" })).first;
    expect(ctrl.statusCode).toBe(400);
    const huge = (await anonymous("203.0.113.3", { email: `${"a".repeat(100_000)}@example.org` })).first;
    expect(huge.statusCode).toBeLessThan(500);
    expect(huge.statusCode).toBeGreaterThanOrEqual(400);
    const quick = (await anonymous("203.0.113.4", {}, page(), 0)).first;
    expect(quick.statusCode).toBe(400);
    expect(quick.body).toContain("That was very quick");
    const bot = (await anonymous("203.0.113.5", { website: "http://spam.example" })).first;
    expect(bot.statusCode).toBe(400);
    const forged = await h.app.inject({
      method: "POST",
      url: `${page()}/seen`,
      remoteAddress: "203.0.113.6",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "_csrf=forged.token.value&website=",
    });
    expect(forged.statusCode).toBeGreaterThanOrEqual(400);
    expect(forged.statusCode).toBeLessThan(500);
    const json = await h.app.inject({
      method: "POST",
      url: `${page()}/seen`,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ email: ["x@example.org"], _csrf: { nested: true } }),
    });
    expect(json.statusCode).toBeGreaterThanOrEqual(400);
    expect(json.statusCode).toBeLessThan(500);
    const unknown = (await anonymous("203.0.113.7", {}, "/reports/NOPE-0000")).first;
    expect(unknown.statusCode).toBe(404);
    const badLink = await h.app.inject({ method: "GET", url: `/reports/seen/confirm/${"x".repeat(43)}` });
    expect(badLink.statusCode).toBe(410);
    expect(await marks()).toBe(5);
  });

  it("refuses a hidden report's id with a clear 4xx, and counts nothing", async () => {
    const before = await marks();
    const page = await h.app.inject({ method: "GET", url: `/reports/${hiddenRef}` });
    expect(page.statusCode).toBe(410);
    const token = tokenIn((await h.app.inject({ method: "GET", url: `/reports/${reference}` })).body);
    h.advance(4_000);
    const post = await h.app.inject({
      method: "POST",
      url: `/reports/${hiddenRef}/seen`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: token, website: "" }).toString(),
    });
    expect(post.statusCode).toBe(410);
    expect(post.body).toContain("This report is no longer shown");
    const asAccount = await resident.post(`/reports/${hiddenRef}/seen`, { website: "" }, `/reports/${reference}`);
    expect(asAccount.statusCode).toBe(410);
    expect((await h.app.inject({ method: "GET", url: `/reports/${hiddenRef}/seen` })).statusCode).toBe(410);
    expect(await marks()).toBe(before);
  });

  it("lists a person's marks in their data download and erases them with their data", async () => {
    const sources = personalDataSources(h.app.civic);
    const source = sources.find((s) => s.key === "reportSeen")!;
    expect(source).toBeDefined();
    const ctx = sourceContext(h.app.civic);
    const byAccount = { accountId: resident.accountId, email: "neighbour@example.org" };
    const byEmail = { accountId: null, email: "walker@example.org" };
    expect((await source.collect(ctx, byAccount)).data).toEqual([
      expect.objectContaining({ report: reference, signedIn: true }),
    ]);
    expect((await source.collect(ctx, byEmail)).data).toEqual([
      expect.objectContaining({ report: reference, email: "walker@example.org" }),
    ]);
    await source.erase(ctx, byAccount, { removePublicContent: false });
    await source.erase(ctx, byEmail, { removePublicContent: false });
    expect(await marks()).toBe(3);
    const events = await seenEvents();
    expect(events.filter((e) => e.author_account_id !== null || e.author_email !== null)).toHaveLength(0);
    const shown = await h.app.inject({ method: "GET", url: page() });
    expect(shown.body).toContain("3 people have said they have seen this too.");
  });
});
