import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { type SignedIn, signInAs } from "../../test/helpers/staff.js";
import { createApiKey } from "../open311/keys.js";
import { submitReport } from "../reports/submit.js";
import { addBan } from "./ban-list.js";
import { activeStrikes, moderate, overruleStrike, unsuspendAccount } from "./decisions.js";

/** Every public output a report could appear in, fetched anonymously. */
async function publicOutputs(t: TestApp, reference: string) {
  const get = (url: string) => t.app.inject({ method: "GET", url });
  const [page, list, atom, sitemap, api, apiOne, status] = await Promise.all([
    get(`/reports/${reference}`),
    get("/reports"),
    get("/reports.atom"),
    get("/sitemap.xml"),
    get("/api/v2/requests.json"),
    get(`/api/v2/requests/${reference}.json`),
    get(`/status?reference=${reference}`),
  ]);
  return { page, list, atom, sitemap, api, apiOne, status };
}

async function flag(t: TestApp, reference: string, client: string, reason = "spam", who?: SignedIn) {
  const cookie: Record<string, string> = who ? { cookie: who.cookie } : {};
  const form = await t.app.inject({
    method: "GET",
    url: `/report-this/report/${reference}`,
    remoteAddress: client,
    headers: cookie,
  });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? "";
  return t.app.inject({
    method: "POST",
    url: `/report-this/report/${reference}`,
    remoteAddress: client,
    headers: { ...cookie, "content-type": "application/x-www-form-urlencoded", origin: "http://civic.test" },
    payload: new URLSearchParams({ _csrf: csrf, reason, note: "Looks like an advert" }).toString(),
  });
}

describeEachDb("moderation", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { AUTO_HIDE_FLAGS: "3", SUSPEND_AFTER_STRIKES: "2" } });
  });
  afterAll(async () => t?.close());

  it("hides a report after AUTO_HIDE_FLAGS independent flaggers, one per client, from every public output", async () => {
    const db = t.app.civic.database.db;
    // Issue 27 #12: only confirmed accounts at least a week old count towards auto-hide (see flags.ts).
    const monthAgo = new Date(t.app.civic.now().getTime() - 30 * 86_400_000).toISOString();
    const flaggers: SignedIn[] = [];
    for (const n of [1, 2, 3]) {
      const who = await signInAs(t.app, `flagger${n}@example.org`, "resident");
      await db.updateTable("accounts").set({ created_at: monthAgo }).where("id", "=", who.accountId).execute();
      flaggers.push(who);
    }
    const { reference } = await submitReport(
      t.app.civic,
      reportSubmission({
        title: "Cheap watches for sale",
        reporter: { email: "author@example.org", name: null, phone: null, shareContact: false },
      }),
    );
    let out = await publicOutputs(t, reference);
    expect(out.page.statusCode).toBe(200);
    expect(out.page.body).toContain(`/report-this/report/${reference}`);
    expect(out.list.body).toContain(reference);

    expect((await flag(t, reference, "192.0.2.1", "spam", flaggers[0])).statusCode).toBe(200);
    // The same flagger again: accepted quietly, still one flag.
    expect((await flag(t, reference, "192.0.2.1", "spam", flaggers[0])).statusCode).toBe(200);
    expect((await flag(t, reference, "192.0.2.2", "spam", flaggers[1])).statusCode).toBe(200);
    const flags = await db.selectFrom("moderation_flags").selectAll().where("item_id", "=", reference).execute();
    expect(flags).toHaveLength(2);
    expect(JSON.stringify(flags)).not.toContain("192.0.2");
    expect((await publicOutputs(t, reference)).page.statusCode).toBe(200);

    const third = await flag(t, reference, "192.0.2.3", "spam", flaggers[2]);
    expect(third.body).toContain("hidden until a moderator");
    out = await publicOutputs(t, reference);
    expect(out.page.statusCode).toBe(410);
    expect(out.page.body).toContain("moderators");
    for (const res of [out.list, out.atom, out.sitemap, out.api]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(reference);
    }
    expect(out.apiOne.statusCode).toBe(404);
    expect(out.status.body).not.toContain("Cheap watches");

    // Staff still see it, marked.
    const moderator = await signInAs(t.app, "mod@example.org", "moderator");
    const staffView = await moderator.get(`/reports/${reference}`);
    expect(staffView.statusCode).toBe(200);
    expect(staffView.body).toContain("Staff view: this is hidden");

    const decision = await db
      .selectFrom("moderation_decisions")
      .selectAll()
      .where("item_id", "=", reference)
      .executeTakeFirstOrThrow();
    expect(decision.action).toBe("auto-hide");
    const audit = await db.selectFrom("audit_log").selectAll().where("item_id", "=", reference).execute();
    expect(audit.map((a) => a.action)).toContain("moderation.auto-hide");
    const mail = await db
      .selectFrom("outbox")
      .selectAll()
      .where("to_address", "=", "author@example.org")
      .where("kind", "=", "moderation-decision")
      .executeTakeFirstOrThrow();
    expect(mail.subject).not.toContain("watches");

    // A moderator restores it: public again, flags resolved.
    await moderate(t.app.civic, {
      kind: "report",
      id: reference,
      action: "unhide",
      reason: "Not spam: a resident selling at the fete.",
      actor: { accountId: moderator.accountId, role: "moderator" },
    });
    out = await publicOutputs(t, reference);
    expect(out.page.statusCode).toBe(200);
    expect(out.page.body).toContain("Moderated on");
  });

  it("answers bad flags with a clear message, never a 5xx", async () => {
    const { reference } = await submitReport(t.app.civic, reportSubmission());
    const missing = await flag(t, reference, "198.51.100.7", "");
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain("choose one of the reasons");
    const unknown = await t.app.inject({ method: "GET", url: "/report-this/report/ZZZZ-ZZZZ" });
    expect(unknown.statusCode).toBe(404);
    const kind = await t.app.inject({ method: "GET", url: "/report-this/nonsense/1" });
    expect(kind.statusCode).toBe(404);
    await expect(
      moderate(t.app.civic, {
        kind: "report",
        id: reference,
        action: "hide",
        reason: "  ",
        actor: { accountId: null, role: "moderator" },
      }),
    ).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("hides a single update from the page and the Open311 status notes", async () => {
    const db = t.app.civic.database.db;
    const { id, reference } = await submitReport(t.app.civic, reportSubmission());
    const row = await db
      .insertInto("report_updates")
      .values({
        report_id: id,
        status: "open",
        previous_status: "open",
        note: "Abusive words here",
        created_at: new Date().toISOString(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect((await t.app.inject(`/reports/${reference}`)).body).toContain("Abusive words here");
    await moderate(t.app.civic, {
      kind: "update",
      id: String(row.id),
      action: "remove",
      reason: "Abusive",
      actor: { accountId: null, role: "moderator" },
    });
    const page = await t.app.inject(`/reports/${reference}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain("Abusive words here");
    expect(page.body).toContain("Moderated on");
    expect((await t.app.inject(`/api/v2/requests/${reference}.json`)).body).not.toContain("Abusive words");
  });

  it("never publishes reports from banned addresses or domains, by web or Open311", async () => {
    const civic = t.app.civic;
    await addBan(civic.database.db, { pattern: "spam.example", reason: "Spam domain", by: null }, civic.now());
    await addBan(civic.database.db, { pattern: "troll@example.net", reason: "Abuse", by: null }, civic.now());
    const web = await submitReport(
      civic,
      reportSubmission({ reporter: { email: "x@mail.spam.example", name: null, phone: null, shareContact: false } }),
    );
    const key = await createApiKey(civic.database.db, "ban test", civic.now());
    const api = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        api_key: key.key,
        service_code: "pothole",
        lat: "50.9862",
        long: "-2.0437",
        description: "Pothole from a banned sender.",
        "attribute[road_or_pavement]": "road",
        email: "Troll@Example.net",
      }).toString(),
    });
    expect(api.statusCode, api.body).toBeLessThan(300);
    const apiRef = (api.json() as { service_request_id: string }[])[0]?.service_request_id as string;
    for (const reference of [web.reference, apiRef]) {
      const out = await publicOutputs(t, reference);
      expect(out.page.statusCode).toBe(410);
      expect(out.apiOne.statusCode).toBe(404);
      for (const res of [out.list, out.atom, out.sitemap, out.api]) expect(res.body).not.toContain(reference);
    }
    await expect(
      moderate(civic, {
        kind: "report",
        id: web.reference,
        action: "unhide",
        reason: "try",
        actor: { accountId: null, role: "admin" },
      }),
    ).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("suspends an account after SUSPEND_AFTER_STRIKES upheld decisions, ends its sessions; a strike can be overruled", async () => {
    const civic = t.app.civic;
    const db = civic.database.db;
    const resident = await signInAs(t.app, "resident@example.org", "resident");
    const admin = await signInAs(t.app, "admin@example.org", "admin");
    expect((await resident.get("/account")).statusCode).toBe(200);
    const refs: string[] = [];
    for (let i = 0; i < 2; i++) {
      refs.push((await submitReport(civic, reportSubmission({ accountId: resident.accountId }))).reference);
    }
    const actor = { accountId: admin.accountId, role: "admin" as const };
    await moderate(civic, { kind: "report", id: refs[0] as string, action: "hide", reason: "Spam", actor });
    expect(await activeStrikes(db, resident.accountId, civic.now())).toBe(1);
    const strike = await db
      .selectFrom("moderation_strikes")
      .select("id")
      .where("account_id", "=", resident.accountId)
      .executeTakeFirstOrThrow();
    await overruleStrike(civic, { strikeId: strike.id, reason: "Not spam after all", actor });
    expect(await activeStrikes(db, resident.accountId, civic.now())).toBe(0);
    await expect(
      overruleStrike(civic, { strikeId: strike.id, reason: "again", actor: { accountId: null, role: "moderator" } }),
    ).rejects.toMatchObject({ code: "forbidden" });

    await moderate(civic, { kind: "report", id: refs[1] as string, action: "remove", reason: "Abusive", actor });
    const third = (await submitReport(civic, reportSubmission({ accountId: resident.accountId }))).reference;
    await moderate(civic, { kind: "report", id: third, action: "hide", reason: "Spam again", actor });
    const account = await db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", resident.accountId)
      .executeTakeFirstOrThrow();
    expect(account.suspended_at).not.toBeNull();
    expect(account.suspended_reason).toContain("Automatic");
    const sessions = await db.selectFrom("sessions").selectAll().where("account_id", "=", resident.accountId).execute();
    expect(sessions).toHaveLength(0);
    expect((await resident.get("/account")).statusCode).not.toBe(200);
    const mail = await db
      .selectFrom("outbox")
      .selectAll()
      .where("to_address", "=", "resident@example.org")
      .where("kind", "=", "moderation-suspension")
      .executeTakeFirstOrThrow();
    expect(mail.text_body).toContain("appeal");

    await unsuspendAccount(civic, { accountId: resident.accountId, reason: "Appeal upheld", actor });
    const audit = await db.selectFrom("audit_log").select("action").where("item_id", "=", resident.accountId).execute();
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["moderation.suspend", "moderation.unsuspend"]));
  });
});

describeEachDb("moderation in the personal data export", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  it("lists decisions and strikes about the person", async () => {
    const { personalDataSources, sourceContext } = await import("../accounts/index.js");
    const civic = t.app.civic;
    const person = await signInAs(t.app, "person@example.org", "resident");
    const { reference } = await submitReport(civic, reportSubmission({ accountId: person.accountId }));
    await moderate(civic, {
      kind: "report",
      id: reference,
      action: "hide",
      reason: "Spam link",
      actor: { accountId: null, role: "moderator" },
    });
    const source = personalDataSources(civic).find((s) => s.key === "moderation");
    const part = await source?.collect(sourceContext(civic), {
      accountId: person.accountId,
      email: "person@example.org",
    });
    expect(JSON.stringify(part?.data)).toContain("Spam link");
    expect((part?.data as { strikes: unknown[] }).strikes).toHaveLength(1);
  });
});
