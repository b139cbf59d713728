import type { FastifyInstance } from "fastify";
import { deviceOwnerKey } from "../../src/core/web/device-owner.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { claimIdempotencyKey, IDEMPOTENCY_RETENTION_MS } from "../../src/core/http/idempotency.js";
import { createApiKey } from "../../src/open311/keys.js";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { signInAs } from "../helpers/staff.js";

function multipart(fields: [string, string][], photo?: Buffer) {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  if (photo) form.append("photos", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "pothole.jpg");
  return form;
}

const report = (title: string): [string, string][] => [
  ["category", "pothole"],
  ["title", title],
  ["description", "Deep hole on the corner."],
  ["lat", "50.98650"],
  ["lng", "-2.04400"],
  ["attribute[road_or_pavement]", "road"],
  ["email", "ann@example.org"],
  ["website", ""],
];

const open311 = (key: string, description: string) =>
  new URLSearchParams({
    api_key: key,
    service_code: "pothole",
    lat: "50.9865",
    long: "-2.044",
    description,
    "attribute[road_or_pavement]": "road",
  }).toString();

describeEachDb("Idempotency-Key on every report submission path", (dialect) => {
  let t: TestApp;
  let second: FastifyInstance;
  let apiKey: string;
  let offset = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      env: { RATE_LIMIT_WRITE_MAX: "200" },
    });
    // A second process on the same database.
    second = await buildApp(t.config, {
      logger: false,
      database: t.db.reopen(),
      now: () => new Date(Date.now() + offset),
    });
    await second.ready();
    apiKey = (await createApiKey(t.db.database.db, "Test client", new Date())).key;
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  const count = async () =>
    Number(
      (
        await t.db.database.db
          .selectFrom("reports")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  const postOpen311 = (app: FastifyInstance, body: string, key?: string, format = "json") =>
    app.inject({
      method: "POST",
      url: `/api/v2/requests.${format}`,
      headers: { "content-type": "application/x-www-form-urlencoded", ...(key ? { "idempotency-key": key } : {}) },
      payload: body,
    });

  const postApp = (app: FastifyInstance, fields: [string, string][], key?: string, photo?: Buffer) =>
    app.inject({
      method: "POST",
      url: "/api/app/reports",
      // The endpoint takes posts from this site's pages only (they send Origin).
      headers: key ? { "idempotency-key": key, origin: "http://civic.test" } : { origin: "http://civic.test" },
      payload: multipart(fields, photo),
    });

  it("Open311: a replay answers the first result and creates nothing, also on another instance", async () => {
    const before = await count();
    const body = open311(apiKey, "Pothole, first description.");
    const first = await postOpen311(t.app, body, '"open311-replay-1"');
    expect(first.statusCode).toBe(200);
    const id = (first.json() as { service_request_id: string }[])[0]?.service_request_id;
    expect(id).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const again = await postOpen311(t.app, body, '"open311-replay-1"');
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers["content-type"]).toBe(first.headers["content-type"]);
    const elsewhere = await postOpen311(second, body, "open311-replay-1"); // bare token: same key
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.body).toBe(first.body);
    expect(await count()).toBe(before + 1);
    // Without a key every post is a new report, as before.
    expect((await postOpen311(t.app, body)).statusCode).toBe(200);
    expect((await postOpen311(t.app, body)).statusCode).toBe(200);
    expect(await count()).toBe(before + 3);
  });

  it("Open311: the same key with a different body is 422, in the Open311 error format", async () => {
    const key = '"open311-mismatch"';
    expect((await postOpen311(t.app, open311(apiKey, "One pothole."), key)).statusCode).toBe(200);
    const before = await count();
    const other = await postOpen311(t.app, open311(apiKey, "Another pothole."), key);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual([{ code: 422, description: expect.stringContaining("different request") }]);
    const xml = await postOpen311(second, open311(apiKey, "Another pothole."), key, "xml");
    expect(xml.statusCode).toBe(422);
    expect(xml.body).toContain("<errors><error><code>422</code>");
    expect(await count()).toBe(before);
  });

  it("Open311: concurrent duplicates on two instances create one report; the others get it or 409", async () => {
    const before = await count();
    const body = open311(apiKey, "Concurrent pothole.");
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => postOpen311(i % 2 ? second : t.app, body, '"open311-concurrent"')),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ids = new Set(answers.filter((a) => a.statusCode === 200).map((a) => a.body));
    expect(ids.size).toBe(1);
    for (const busy of answers.filter((a) => a.statusCode === 409)) {
      expect(busy.headers["retry-after"]).toBeDefined();
      expect(busy.json()).toEqual([{ code: 409, description: expect.stringContaining("still being processed") }]);
    }
    expect(await count()).toBe(before + 1);
  });

  it("Open311: a refused request releases its key, so the corrected one can use it", async () => {
    const key = '"open311-refused"';
    const refused = await postOpen311(t.app, open311(apiKey, ""), key);
    expect(refused.statusCode).toBe(400);
    expect((await postOpen311(t.app, open311(apiKey, "Now with a description."), key)).statusCode).toBe(200);
    // A malformed key is a 400, once the API key is known (before that, only the API key's own 403).
    expect((await postOpen311(t.app, open311(apiKey, "Malformed key."), '"not a valid key"')).statusCode).toBe(400);
    expect((await postOpen311(t.app, "api_key=x", '"not a valid key"')).statusCode).toBe(403);
  });

  it("the web form carries a key: a repeated post redirects to the first report's confirmation", async () => {
    const before = await count();
    const _csrf = await formToken(t.app, "/report?category=pothole");
    offset += MIN_FILL_MS + 1000;
    const fields: [string, string][] = [
      ["_csrf", _csrf],
      ["idempotency_key", "web-form-key-1"],
      ...report("Web form pothole"),
      ["action", "send"],
    ];
    const post = (app: FastifyInstance, f: [string, string][]) =>
      app.inject({ method: "POST", url: "/report", payload: multipart(f) });
    const first = await post(t.app, fields);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toMatch(/^\/report\/sent\/[0-9A-Z]{4}-[0-9A-Z]{4}\?proof=[\w-]+$/);
    const again = await post(second, fields);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);
    // The form's page carries a fresh key each time.
    const page = await t.app.inject({ url: "/report?category=pothole" });
    expect(page.body).toMatch(/name="idempotency_key" value="[0-9a-f-]{36}"/);
    // Changed content with the same key.
    const changed = await post(
      t.app,
      fields.map(([k, v]) => [k, k === "title" ? "Another title" : v]),
    );
    expect(changed.statusCode).toBe(422);
    expect(changed.headers["content-type"]).toContain("text/html");
    expect(changed.body).toContain("different request");
    // "Check for reports nearby" posts the same form and is not a submission.
    const check = await post(t.app, [...fields.filter(([k]) => k !== "action"), ["action", "check"]]);
    expect(check.statusCode).toBe(200);
    expect(await count()).toBe(before + 1);

    // The same content sent later by the app as a draft (the form's answer was lost) is the same report.
    const draft = await postApp(second, report("Web form pothole"), '"web-form-key-1"');
    expect(draft.statusCode).toBe(303);
    expect(draft.headers.location).toBe(first.headers.location);
    expect(await count()).toBe(before + 1);
  });

  it("the app's drafts endpoint: key required, replay, 422, its own defences, and a refused draft's reason", async () => {
    const before = await count();
    const missing = await postApp(t.app, report("No key"));
    expect(missing.statusCode).toBe(400);
    expect(missing.headers["content-type"]).toContain("application/problem+json");
    expect(missing.json()).toMatchObject({ code: "idempotency_key_missing" });

    const photo = await jpegWithGps(400, 300);
    const first = await postApp(t.app, report("Draft pothole"), '"draft-1"', photo);
    expect(first.statusCode).toBe(201);
    const created = first.json() as { reference: string; url: string };
    expect(created.reference).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // The sender's own confirmation page (with the proof that shows it to them even when the report is withheld).
    expect(created.url.startsWith(`/report/sent/${created.reference}?proof=`)).toBe(true);
    // Days later (no form token, no fill time), on another instance: the same answer.
    offset += 3 * 86_400_000;
    const again = await postApp(second, report("Draft pothole"), '"draft-1"', photo);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const other = await postApp(t.app, report("Draft pothole"), '"draft-1"', await jpegWithGps(401, 300));
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: "idempotency_key_reused", status: 422 });
    expect(await count()).toBe(before + 1);
    const photos = await t.db.database.db
      .selectFrom("report_photos")
      .innerJoin("reports", "reports.id", "report_photos.report_id")
      .where("reports.reference", "=", created.reference)
      .select("hash")
      .execute();
    expect(photos).toHaveLength(1);

    // A category retired meanwhile: refused with the reason, and the key is free for the corrected draft.
    const retired = await postApp(
      t.app,
      report("Retired").map(([k, v]) => [k, k === "category" ? "no-such-category" : v]),
      '"draft-2"',
    );
    expect(retired.statusCode).toBe(400);
    expect(retired.json()).toMatchObject({
      code: "validation_failed",
      errors: expect.arrayContaining([{ field: "category", message: "is not a category we know" }]),
    });
    expect((await postApp(t.app, report("Corrected"), '"draft-2"')).statusCode).toBe(201);

    const honeypot = await postApp(
      t.app,
      report("Bot").map(([k, v]) => [k, k === "website" ? "http://spam.example" : v]),
      '"draft-3"',
    );
    expect(honeypot.statusCode).toBe(400);
    const crossSite = await t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { "idempotency-key": '"draft-4"', origin: "https://evil.example" },
      payload: multipart(report("Cross-site")),
    });
    expect(crossSite.statusCode).toBe(403);
    const json = await t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { "idempotency-key": '"draft-5"', "content-type": "application/json", origin: "http://civic.test" },
      payload: JSON.stringify({ category: "pothole" }),
    });
    expect(json.statusCode).toBe(415);
    const control = await postApp(t.app, report("Control character in the key"), '"draft\u0001"');
    expect(control.statusCode).toBe(400);
    expect(control.json()).toMatchObject({ code: "bad_request" });
    const tooLong = await postApp(t.app, report("Long key"), `"${"k".repeat(256)}"`);
    expect(tooLong.statusCode).toBe(400);
    const form = multipart(report("Too many photos"));
    for (let i = 0; i < t.config.uploads.maxPhotos + 1; i++) {
      form.append("photos", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), `p${i}.jpg`);
    }
    const tooMany = await t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { "idempotency-key": '"draft-6"', origin: "http://civic.test" },
      payload: form,
    });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.headers["content-type"]).toContain("application/problem+json");
    expect(await count()).toBe(before + 2);
  });

  it("keys are scoped to who sends them: each account has its own, anonymous posts share one", async () => {
    const ann = await signInAs(t.app, "scope.ann@example.org", "resident");
    const bob = await signInAs(t.app, "scope.bob@example.org", "resident");
    // Each draft is sent in the session that saved it, with its owner (issue 33 #5).
    const send = (who: { cookie: string; accountId: string } | null) =>
      t.app.inject({
        method: "POST",
        url: "/api/app/reports",
        headers: {
          "idempotency-key": '"scoped-draft-1"',
          origin: "http://civic.test",
          ...(who
            ? { cookie: who.cookie, "draft-owner": deviceOwnerKey(t.app.civic.config.sessionSecret, who.accountId) }
            : {}),
        },
        payload: multipart(report("Scoped draft")),
      });
    const before = await count();
    const mine = await send(ann);
    expect(mine.statusCode, mine.body).toBe(201);
    // Ann's retry is Ann's answer.
    expect((await send(ann)).json()).toEqual(mine.json());
    // Bob and an anonymous device with the same key and fields get reports of their own, not Ann's reference.
    const bobs = await send(bob);
    expect(bobs.statusCode, bobs.body).toBe(201);
    const anonymous = await send(null);
    expect(anonymous.statusCode, anonymous.body).toBe(201);
    const references = [mine, bobs, anonymous].map((r) => (r.json() as { reference: string }).reference);
    expect(new Set(references).size).toBe(3);
    expect(await count()).toBe(before + 3);
    const scopes = await t.db.database.db
      .selectFrom("idempotency_keys")
      .select("scope")
      .where("key", "=", "scoped-draft-1")
      .execute();
    expect(scopes.map((s) => s.scope).sort()).toEqual(
      [`report:account:${ann.accountId}`, `report:account:${bob.accountId}`, "report:anonymous"].sort(),
    );
  });

  it("keys are claimed once under concurrency, kept for at least 24 hours, and a dead holder's key is taken over", async () => {
    const db = t.db.database.db;
    const other = t.db.reopen();
    try {
      const now = new Date();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          claimIdempotencyKey(i % 2 ? other.db : db, "test", "race", "fingerprint", now),
        ),
      );
      expect(claims.filter((c) => c.kind === "owned")).toHaveLength(1);
      expect(claims.filter((c) => c.kind === "running")).toHaveLength(7);
      const row = await db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("scope", "=", "test")
        .where("key", "=", "race")
        .executeTakeFirstOrThrow();
      expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(IDEMPOTENCY_RETENTION_MS);
      expect(IDEMPOTENCY_RETENTION_MS).toBeGreaterThanOrEqual(24 * 3_600_000);
      // Its process died: after the lease, a retry may run.
      const later = new Date(now.getTime() + 10 * 60_000);
      expect((await claimIdempotencyKey(db, "test", "race", "fingerprint", later)).kind).toBe("owned");
    } finally {
      await other.close();
    }
  });
});
