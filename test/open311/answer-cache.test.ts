import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { moderate } from "../../src/moderation/decisions.js";
import { AnswerCache } from "../../src/open311/answer-cache.js";
import { publicReadVersion } from "../../src/reports/data-version.js";
import { changeStatus } from "../../src/reports/events.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { expectValid, insertReport } from "./support.js";

const DAY = 24 * 60 * 60 * 1000;

interface Req {
  service_request_id: string;
  status: string;
  status_notes: string | null;
  service_name: string | null;
  address: string | null;
  media_url: string | null;
}

/**
 * GET requests answers searches from each process's answer cache while the public data is unchanged. These tests
 * show what a client must never notice: every change, made by any process or in plain SQL, shows at the next
 * request on every instance; only the repeat of an unchanged answer is served again (same ETag, 304 on a match).
 */
describeEachDb("Open311 answer cache", (dialect) => {
  let t: TestApp;
  let second: FastifyInstance;
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const db = () => t.app.civic.database.db;
  const list = async (app: FastifyInstance, url = "/api/v2/requests.json"): Promise<Req[]> => {
    const res = await app.inject({ method: "GET", url });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Req[];
    expectValid("requests", body);
    return body;
  };
  const find = async (app: FastifyInstance, reference: string, url?: string) =>
    (await list(app, url)).find((r) => r.service_request_id === reference);
  /** Both instances have the default answer (and the near-here one) in their caches before a change. */
  const warm = async () => {
    for (const app of [t.app, second]) {
      await list(app);
      await list(app);
    }
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now, env: { RATE_LIMIT_READ_MAX: "10000" } });
    second = await buildApp(t.config, { logger: false, database: t.db.reopen(), now });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it("serves an unchanged answer again with the same ETag, and a 304 to If-None-Match", async () => {
    const first = await t.app.inject({ method: "GET", url: "/api/v2/requests.json" });
    const again = await t.app.inject({ method: "GET", url: "/api/v2/requests.json" });
    expect(again.body).toBe(first.body);
    expect(first.headers.etag).toMatch(/^"[\w-]{32}"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers["cache-control"]).toBe("public, max-age=60");
    // Another process builds the same bytes, so the same tag: a client behind a load balancer keeps its 304s.
    const other = await second.inject({ method: "GET", url: "/api/v2/requests.json" });
    expect(other.headers.etag).toBe(first.headers.etag);
    const notModified = await second.inject({
      method: "GET",
      url: "/api/v2/requests.json",
      headers: { "if-none-match": String(first.headers.etag) },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe("");
    expect(notModified.headers.etag).toBe(first.headers.etag);
    // A malformed, hostile or foreign If-None-Match is no match: the whole answer.
    for (const header of ["\u0001garbage", '"unterminated', "W/", `${"x".repeat(8000)}`, '"a", , "b"']) {
      const res = await t.app.inject({
        method: "GET",
        url: "/api/v2/requests.json",
        headers: { "if-none-match": header },
      });
      expect(res.statusCode, header.slice(0, 20)).toBe(200);
      expect(res.body).toBe(first.body);
    }
    // XML is its own answer.
    const xml = await t.app.inject({ method: "GET", url: "/api/v2/requests.xml" });
    expect(xml.headers["content-type"]).toBe("text/xml; charset=utf-8");
    expect(xml.headers.etag).not.toBe(first.headers.etag);
  });

  it("shows a new report at once on both instances; the old ETag no longer matches", async () => {
    await warm();
    const before = await t.app.inject({ method: "GET", url: "/api/v2/requests.json" });
    const { reference } = await submitReport(t.app.civic, reportSubmission({ description: "A new pothole here." }));
    for (const app of [t.app, second]) expect(await find(app, reference)).toBeDefined();
    const after = await second.inject({
      method: "GET",
      url: "/api/v2/requests.json",
      headers: { "if-none-match": String(before.headers.etag) },
    });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it("drops a report hidden by a moderator at once on the other instance, in JSON and XML", async () => {
    const { reference } = await submitReport(t.app.civic, reportSubmission({ description: "Rude words in here." }));
    await warm();
    const xmlBefore = await second.inject({ method: "GET", url: "/api/v2/requests.xml" });
    expect(xmlBefore.body).toContain(reference);
    const actor = { accountId: null, role: "admin" as const };
    await moderate(t.app.civic, { kind: "report", id: reference, action: "hide", reason: "Breaks the terms.", actor });
    expect(await find(second, reference)).toBeUndefined();
    expect((await second.inject({ method: "GET", url: "/api/v2/requests.xml" })).body).not.toContain(reference);
  });

  it("shows changes made in plain SQL to a report, its updates, its photos, categories and places", async () => {
    const report = await insertReport(t.app, { reference: "SQL-0001", created_at: now().toISOString() });
    await warm();

    await changeStatus(db(), report.id, "investigating", "Looking into it.", now());
    expect((await find(second, "SQL-0001"))?.status_notes).toBe("Looking into it.");

    await db().updateTable("report_updates").set({ note: "Crew booked." }).where("report_id", "=", report.id).execute();
    expect((await find(second, "SQL-0001"))?.status_notes).toBe("Crew booked.");
    await db().updateTable("report_updates").set({ visibility: "hidden" }).where("report_id", "=", report.id).execute();
    expect((await find(second, "SQL-0001"))?.status_notes).not.toBe("Crew booked.");

    await db()
      .insertInto("report_photos")
      .values({
        report_id: report.id,
        position: 0,
        hash: "a".repeat(64),
        width: 10,
        height: 10,
        content_type: "image/jpeg",
        created_at: now().toISOString(),
      })
      .execute();
    expect((await find(second, "SQL-0001"))?.media_url).toContain("a".repeat(64));
    await db().updateTable("report_photos").set({ visibility: "hidden" }).where("report_id", "=", report.id).execute();
    expect((await find(second, "SQL-0001"))?.media_url).toBeNull();

    await db().updateTable("reports").set({ status: "fixed" }).where("id", "=", report.id).execute();
    expect((await find(second, "SQL-0001"))?.status).toBe("closed");

    await db().updateTable("categories").set({ name: "Holes in the road" }).where("code", "=", "pothole").execute();
    expect((await find(second, "SQL-0001"))?.service_name).toBe("Holes in the road");

    const place = await db().selectFrom("places").select(["id", "name"]).executeTakeFirstOrThrow();
    await db().updateTable("reports").set({ place_id: place.id }).where("id", "=", report.id).execute();
    expect((await find(second, "SQL-0001"))?.address).toBe(place.name);
    await db().updateTable("places").set({ name: "Renamed Lane" }).where("id", "=", place.id).execute();
    expect((await find(second, "SQL-0001"))?.address).toBe("Renamed Lane");

    await db().deleteFrom("report_updates").where("report_id", "=", report.id).execute();
    await db().deleteFrom("report_photos").where("report_id", "=", report.id).execute();
    await db().deleteFrom("reports").where("id", "=", report.id).execute();
    expect(await find(second, "SQL-0001")).toBeUndefined();
  });

  it("keeps near-here and filtered answers apart, and moves each on a change", async () => {
    const near = "/api/v2/requests.json?lat=50.9862&long=-2.0437&radius=200";
    const open = "/api/v2/requests.json?status=open";
    const report = await insertReport(t.app, { reference: "NEAR-0001", created_at: now().toISOString() });
    for (const url of [near, open]) {
      for (const app of [t.app, second]) expect(await find(app, "NEAR-0001", url)).toBeDefined();
    }
    await db().updateTable("reports").set({ latitude: 50.99 }).where("id", "=", report.id).execute();
    expect(await find(second, "NEAR-0001", near)).toBeUndefined();
    expect(await find(second, "NEAR-0001", open)).toBeDefined();
    await db().updateTable("reports").set({ status: "closed" }).where("id", "=", report.id).execute();
    expect(await find(second, "NEAR-0001", open)).toBeUndefined();
  });

  it("lets a report leave the 90-day window as time passes, without any write", async () => {
    const edge = new Date(now().getTime() - 90 * DAY + 5_000).toISOString();
    await insertReport(t.app, { reference: "EDGE-0001", created_at: edge });
    expect(await find(t.app, "EDGE-0001")).toBeDefined();
    expect(await find(t.app, "EDGE-0001")).toBeDefined();
    offset += 30_000;
    expect(await find(t.app, "EDGE-0001")).toBeUndefined();
    expect(await find(second, "EDGE-0001")).toBeUndefined();
  });

  it("moves the public data version with writes to every table it covers, and only forward", async () => {
    const v0 = await publicReadVersion(db());
    const report = await insertReport(t.app, { reference: "VER-0001" });
    const v1 = await publicReadVersion(db());
    expect(v1).toBeGreaterThan(v0);
    await sql`update reports set title = 'Changed' where id = ${report.id}`.execute(db());
    const v2 = await publicReadVersion(db());
    expect(v2).toBeGreaterThan(v1);
    await sql`delete from reports where id = ${report.id}`.execute(db());
    expect(await publicReadVersion(db())).toBeGreaterThan(v2);
  });
});

describe("AnswerCache", () => {
  const answer = (bytes: number, builtAt = 0) => ({
    payload: Buffer.alloc(bytes),
    contentType: "application/json; charset=utf-8",
    etag: '"x"',
    builtAt,
  });

  it("keeps at most its byte budget, dropping the least recently used", () => {
    const cache = new AnswerCache({ maxBytes: 1_000_000, freshMs: 10_000 });
    for (let i = 0; i < 100; i++) cache.set(`q${i}`, 1, answer(100_000));
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.get("q99", 1, 0)).toBeDefined();
    expect(cache.get("q0", 1, 0)).toBeUndefined();
  });

  it("forgets everything when the version moves, and keeps nothing built under an older version", () => {
    const cache = new AnswerCache({ maxBytes: 1_000_000, freshMs: 10_000 });
    cache.set("a", 5, answer(10));
    expect(cache.get("a", 5, 0)).toBeDefined();
    expect(cache.get("a", 6, 0)).toBeUndefined();
    // A request that read version 5 before another read 6 must not store its (possibly older) answer.
    cache.set("b", 5, answer(10));
    expect(cache.get("b", 6, 0)).toBeUndefined();
    // A request still on version 5 after the move gets nothing from the cache.
    cache.set("c", 6, answer(10));
    expect(cache.get("c", 5, 0)).toBeUndefined();
    expect(cache.get("c", 6, 0)).toBeDefined();
  });

  it("serves an answer only while fresh by the app's clock, and nothing when turned off", () => {
    const cache = new AnswerCache({ maxBytes: 1_000_000, freshMs: 10_000 });
    cache.set("a", 1, answer(10, 1_000));
    expect(cache.get("a", 1, 10_999)).toBeDefined();
    expect(cache.get("a", 1, 11_000)).toBeUndefined();
    cache.set("b", 1, answer(10, 1_000));
    expect(cache.get("b", 1, 999)).toBeUndefined();
    const off = new AnswerCache({ maxBytes: 0, freshMs: 10_000 });
    off.set("a", 1, answer(10));
    expect(off.get("a", 1, 0)).toBeUndefined();
  });
});
