import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/** RFC 9110 §5.6.7 IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT". */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The whole second of an instant, as an HTTP date carries it. */
const toHttpDate = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toUTCString();

describeEachDb("single-item API answers carry Last-Modified and honour If-Modified-Since", (dialect) => {
  let t: TestApp;
  let reference: string;
  let reportUpdatedAt: string;
  let businessId: string;
  let businessUpdatedAt: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_READ_MAX: "10000" } });
    const db = t.app.civic.database.db;
    const report = await db
      .selectFrom("reports")
      .select(["reference", "updated_at"])
      .where("visibility", "=", "public")
      .orderBy("reference")
      .executeTakeFirstOrThrow();
    reference = report.reference;
    reportUpdatedAt = report.updated_at;
    const business = await db
      .selectFrom("businesses")
      .select(["id", "updated_at"])
      .where("deleted_at", "is", null)
      .orderBy("id")
      .executeTakeFirstOrThrow();
    businessId = business.id;
    businessUpdatedAt = business.updated_at;
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url, headers });

  /** The RFC 9110 rules for one URL whose Last-Modified is `expected` (or any date when undefined). */
  async function checkConditional(url: string, expected?: string): Promise<string> {
    const res = await get(url);
    expect(res.statusCode, url).toBe(200);
    const lastModified = String(res.headers["last-modified"] ?? "");
    expect(lastModified, url).toMatch(IMF_FIXDATE);
    if (expected !== undefined) expect(lastModified, url).toBe(expected);
    expect(String(res.headers["access-control-expose-headers"]), url).toContain("Last-Modified");
    const etag = String(res.headers.etag);
    const since = Date.parse(lastModified);
    // Not modified since then or since later: 304 with the validators; modified since a second before: 200.
    for (const when of [lastModified, new Date(since + 60_000).toUTCString()]) {
      const again = await get(url, { "if-modified-since": when });
      expect(again.statusCode, `${url} since ${when}`).toBe(304);
      expect(again.headers["last-modified"], url).toBe(lastModified);
      expect(again.body, url).toBe("");
    }
    expect((await get(url, { "if-modified-since": new Date(since - 1000).toUTCString() })).statusCode, url).toBe(200);
    // Not a date: ignored. If-None-Match, when sent, decides alone (RFC 9110 §13.1.3).
    expect((await get(url, { "if-modified-since": "yesterday" })).statusCode, url).toBe(200);
    expect((await get(url, { "if-none-match": '"other"', "if-modified-since": lastModified })).statusCode, url).toBe(
      200,
    );
    expect(
      (await get(url, { "if-none-match": etag, "if-modified-since": "Thu, 01 Jan 1970 00:00:00 GMT" })).statusCode,
      url,
    ).toBe(304);
    return lastModified;
  }

  it("a report (Open311, JSON and XML): Last-Modified is its updated_at", async () => {
    for (const format of ["json", "xml"]) {
      await checkConditional(`/api/v2/requests/${reference}.${format}`, toHttpDate(reportUpdatedAt));
    }
  });

  it("a business: Last-Modified is its updated time", async () => {
    await checkConditional(`/api/v1/businesses/${encodeURIComponent(businessId)}`, toHttpDate(businessUpdatedAt));
  });

  it("a service definition (JSON and XML): Last-Modified is the catalogue's last change, which moves with an edit", async () => {
    const url = "/api/v2/services/streetlight.json";
    const before = await checkConditional(url);
    await checkConditional("/api/v2/services/streetlight.xml", before);
    // The next whole second, so the change is visible at an HTTP date's resolution.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await t.app.civic.database.db
      .updateTable("categories")
      .set({ description: sql<string>`description || ' (edited)'` })
      .where("code", "=", "streetlight")
      .execute();
    const after = String((await get(url)).headers["last-modified"]);
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
    expect((await get(url, { "if-modified-since": before })).statusCode).toBe(200);
  });
});
