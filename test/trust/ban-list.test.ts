import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addBan } from "../../src/moderation/ban-list.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportFormFields } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";
import { deviceOwnerKey } from "../../src/core/web/device-owner.js";

function multipart(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

const report = (title: string) => reportFormFields({ title });

/**
 * Issue 27 #7: the ban list applies to the signed-in account and to every address a submission involves, compared
 * without case and +tags, on every kind of content (reports, report updates, ideas, flags, volunteers, councillor
 * contact), by the web forms, the drafts endpoint and Open311. A banned sender gets the usual answer; nothing of
 * theirs is published or sent on.
 */
describeEachDb("the ban list on every kind of content and every channel", (dialect) => {
  let t: TestApp;
  let offset = 0;
  let apiKey: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      env: { RATE_LIMIT_WRITE_MAX: "200" },
    });
    const civic = t.app.civic;
    await addBan(civic.database.db, { pattern: "Troll+old@Example.net", reason: "Abuse", by: null }, civic.now());
    await addBan(civic.database.db, { pattern: "spam.example", reason: "Spam domain", by: null }, civic.now());
    apiKey = (await createApiKey(civic.database.db, "ban test", civic.now())).key;
  });
  afterAll(async () => t?.close());

  const db = () => t.app.civic.database.db;

  /** Opens `page` (with `cookie`), lets the minimum fill time pass and posts `action` with the page's form token. */
  async function submit(
    page: string,
    action: string,
    fields: Record<string, string>,
    cookie?: string,
    asMultipart = false,
  ): Promise<LightMyRequestResponse> {
    const headers = cookie ? { cookie } : {};
    const res = await t.app.inject({ url: page, headers });
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (!token) throw new Error(`no form token on ${page} (${res.statusCode})`);
    offset += 10_000;
    const all = { _csrf: token, ...fields };
    return asMultipart
      ? t.app.inject({ method: "POST", url: action, headers, payload: multipart(all) })
      : t.app.inject({
          method: "POST",
          url: action,
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams(all).toString(),
        });
  }

  const reportByTitle = (title: string) =>
    db().selectFrom("reports").select(["reference", "visibility", "withheld"]).where("title", "=", title).execute();

  async function expectWithheld(title: string) {
    const rows = await reportByTitle(title);
    expect(rows, title).toHaveLength(1);
    expect(rows[0]?.visibility).toBe("hidden");
    expect(rows[0]?.withheld).toBe(1);
    expect((await t.app.inject(`/reports/${rows[0]?.reference}`)).statusCode).toBe(410);
  }

  it("a banned account's report from the web form, with the email field empty, is kept and never published", async () => {
    const banned = await signInAs(t.app, "troll@example.net", "resident");
    const res = await submit("/report?category=pothole", "/report", report("Banned account web"), banned.cookie, true);
    expect(res.statusCode, res.body).toBe(303);
    await expectWithheld("Banned account web");
    // Signed in under a clean account, a typed address is not used at all (issue 33: the report is filed under the
    // account's own address), so typing a banned one neither withholds the report nor files it under that address.
    const other = await signInAs(t.app, "clean.person@example.org", "resident");
    const typed = await submit(
      "/report?category=pothole",
      "/report",
      { ...report("Banned address typed"), email: "TROLL+new@example.net" },
      other.cookie,
      true,
    );
    expect(typed.statusCode).toBe(303);
    const [filed] = await reportByTitle("Banned address typed");
    expect(filed?.visibility).toBe("public");
    expect(
      (
        await t.app.civic.database.db
          .selectFrom("reports")
          .select("reporter_email")
          .where("title", "=", "Banned address typed")
          .executeTakeFirstOrThrow()
      ).reporter_email,
    ).toBe("clean.person@example.org");
    // A clean account with no email typed is published as before.
    const fine = await submit("/report?category=pothole", "/report", report("Clean account web"), other.cookie, true);
    expect(fine.statusCode).toBe(303);
    expect((await reportByTitle("Clean account web"))[0]?.visibility).toBe("public");
  });

  it("a banned account's draft sent by the drafts endpoint, with no email, is kept and never published", async () => {
    const banned = await signInAs(t.app, "troll@example.net", "resident");
    const res = await t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: {
        cookie: banned.cookie,
        "idempotency-key": "ban-draft-1",
        origin: "http://civic.test",
        // Saved in the banned account's own session (see test/trust/draft-owner.test.ts).
        "draft-owner": deviceOwnerKey(t.app.civic.config.sessionSecret, banned.accountId),
      },
      payload: multipart(report("Banned account draft")),
    });
    expect(res.statusCode, res.body).toBe(201);
    await expectWithheld("Banned account draft");
    const tagged = await t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { "idempotency-key": "ban-draft-2", origin: "http://civic.test" },
      payload: multipart({ ...report("Banned address draft"), email: "troll+x@EXAMPLE.net" }),
    });
    expect(tagged.statusCode).toBe(201);
    await expectWithheld("Banned address draft");
  });

  it("Open311: a banned address with a +tag and capitals is kept and never published", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        api_key: apiKey,
        service_code: "pothole",
        lat: "50.9862",
        long: "-2.0437",
        description: "Banned address by Open311.",
        "attribute[road_or_pavement]": "road",
        email: "Troll+api@Example.NET",
      }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    await expectWithheld("Banned address by Open311");
  });

  it("ideas: a banned account's idea and a banned address's confirmed idea are never published", async () => {
    const banned = await signInAs(t.app, "troll@example.net", "resident");
    const idea = { title: "Banned account idea", description: "Something to say about the pond.", website: "" };
    const res = await submit("/ideas/new", "/ideas", idea, banned.cookie);
    expect(res.statusCode, res.body).toBe(303);
    const anonymous = { ...idea, title: "Banned address idea", email: "Troll+idea@example.net" };
    expect((await submit("/ideas/new", "/ideas", anonymous)).statusCode).toBe(303);
    const rows = await db()
      .selectFrom("ideas")
      .select(["id", "title", "visibility"])
      .where("title", "in", [idea.title, anonymous.title])
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.visibility, row.title).toBe("hidden");
      expect((await t.app.inject(`/ideas/${row.id}`)).statusCode, row.title).not.toBe(200);
    }
    // Confirming the address does not publish it either.
    await db().updateTable("ideas").set({ status: "open" }).where("title", "=", anonymous.title).execute();
    const list = (await t.app.inject("/ideas")).body;
    expect(list).not.toContain(idea.title);
    expect(list).not.toContain(anonymous.title);
  });

  it("volunteers and councillor contact: nothing is kept or sent for a banned account or address", async () => {
    const project = await db().selectFrom("projects").select("id").executeTakeFirstOrThrow();
    const councillor = await db().selectFrom("councillors").select("id").executeTakeFirstOrThrow();
    const volunteer = {
      project: project.id,
      name: "Tess Troll",
      phone: "",
      interests: "Gardening",
      availability: "Weekends",
      website: "",
    };
    const banned = await signInAs(t.app, "troll@example.net", "resident");
    const outboxBefore = await db().selectFrom("outbox").select("id").execute();

    const v1 = await submit("/volunteer", "/volunteer", { ...volunteer, email: "tess@example.org" }, banned.cookie);
    expect(v1.statusCode).toBe(200);
    const v2 = await submit("/volunteer", "/volunteer", { ...volunteer, email: "Troll+vol@Example.net" });
    expect(v2.statusCode).toBe(200);
    const v3 = await submit("/volunteer", "/volunteer", { ...volunteer, email: "someone@mail.spam.example" });
    expect(v3.statusCode).toBe(200);
    expect(await db().selectFrom("volunteers").select("id").where("name", "=", "Tess Troll").execute()).toEqual([]);

    const message = { name: "Tess", message: "A message long enough to be sent.", website: "" };
    const page = `/councillors/${councillor.id}`;
    const c1 = await submit(page, `${page}/contact`, { ...message, email: "tess@example.org" }, banned.cookie);
    expect(c1.statusCode).toBe(200);
    expect(c1.body).toContain("Your message has been sent");
    const c2 = await submit(page, `${page}/contact`, { ...message, email: "TROLL+c@example.net" });
    expect(c2.statusCode).toBe(200);
    const outboxAfter = await db().selectFrom("outbox").select("id").execute();
    expect(outboxAfter.length).toBe(outboxBefore.length);

    // A clean address still signs up (the check is not refusing everyone).
    const ok = await submit("/volunteer", "/volunteer", { ...volunteer, name: "Una Clean", email: "una@example.org" });
    expect(ok.statusCode).toBe(200);
    expect(await db().selectFrom("volunteers").select("id").where("name", "=", "Una Clean").execute()).toHaveLength(1);
  });

  it("report updates and flags: a banned address is not subscribed, a banned account's flag is not recorded", async () => {
    const reference = (
      await db()
        .selectFrom("reports")
        .select("reference")
        .where("visibility", "=", "public")
        .orderBy("id")
        .executeTakeFirstOrThrow()
    ).reference;
    const follow = await submit(`/reports/${reference}/follow`, `/reports/${reference}/follow`, {
      email: "Troll+f@example.net",
      website: "",
    });
    expect(follow.statusCode).toBeLessThan(400);
    const banned = await signInAs(t.app, "troll@example.net", "resident");
    const followSignedIn = await submit(
      `/reports/${reference}/follow`,
      `/reports/${reference}/follow`,
      { email: "tess@example.org", website: "" },
      banned.cookie,
    );
    expect(followSignedIn.statusCode).toBeLessThan(400);
    expect(
      await db()
        .selectFrom("report_followers")
        .select("id")
        .where("email", "in", ["troll+f@example.net", "tess@example.org"])
        .execute(),
    ).toEqual([]);

    const flag = await submit(
      `/report-this/report/${reference}`,
      `/report-this/report/${reference}`,
      { reason: "spam", note: "" },
      banned.cookie,
    );
    expect(flag.statusCode, flag.body).toBe(200);
    expect(await db().selectFrom("moderation_flags").select("id").execute()).toEqual([]);
  });
});
