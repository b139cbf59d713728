import { sql } from "kysely";
import { FEATURES } from "../features.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../app.js";
import type { Database } from "../core/db/database.js";
import { sitePages } from "../core/web/sitemap.js";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { analyticsRollupJob } from "./rollup.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/** Every row of every table, as text: what a copy of the database would give away. */
export async function dumpDatabase(database: Database): Promise<string> {
  const names =
    database.dialect === "sqlite"
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(database.db)
      : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(
          database.db,
        );
  const parts: string[] = [];
  for (const { name } of names.rows) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(database.db);
    parts.push(`${name}: ${JSON.stringify(rows.rows)}`);
  }
  return parts.join("\n");
}

async function counts(t: TestApp, kind: string, day: string) {
  const rows = await t.db.database.db
    .selectFrom("analytics_counts")
    .select(["key", "count"])
    .where("kind", "=", kind as "page")
    .where("day", "=", day)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.count)]));
}

async function visitorsOn(t: TestApp, day: string): Promise<number> {
  const row = await t.db.database.db
    .selectFrom("analytics_visitors")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("day", "=", day)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describeEachDb("visitor statistics", (dialect) => {
  let t: TestApp;
  let clock = new Date("2026-11-20T10:00:00.000Z");
  const canary = {
    query: `zq7xquery${Math.random().toString(36).slice(2, 10)}`,
    agent: `Zq7xAgent${Math.random().toString(36).slice(2, 10)}`,
    address: "203.0.113.177",
  };
  const canaryAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 ${canary.agent}/1.0`;
  let reference = "";

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => clock,
      // A staff page of a feature of the test's own: staff pages live in the console under /admin.
      features: [
        ...FEATURES,
        {
          name: "test-staff-page",
          staff: {
            pages: [],
            routes: (scope) =>
              void scope.get("/test-page", async (_request, reply) =>
                reply.type("text/html; charset=utf-8").send("<p>staff"),
              ),
          },
        },
      ],
    });
    const row = await t.db.database.db
      .selectFrom("reports")
      .select("reference")
      .where("visibility", "=", "public")
      .executeTakeFirstOrThrow();
    reference = row.reference;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const visit = (url: string, userAgent: string, headers: Record<string, string> = {}, remoteAddress = "192.0.2.10") =>
    t.app.inject({ method: "GET", url, headers: { "user-agent": userAgent, ...headers }, remoteAddress });

  it("counts page views by route pattern, unique visitors per day, device classes and referring sites", async () => {
    const day = "2026-11-20";
    // One browser loads five pages: one visitor, five views.
    for (const url of ["/", "/reports", `/reports?status=open&${canary.query}=1`, `/reports/${reference}`, "/about"]) {
      const res = await visit(url, FIREFOX);
      expect(res.statusCode, url).toBe(200);
    }
    // A second browser (another user agent) from the same address: a second visitor.
    const fromBbc = await visit("/", IPHONE, { referer: "https://news.bbc.co.uk/local/story?id=1" });
    expect(fromBbc.statusCode).toBe(200);
    // Our own pages as referrer, bots, staff pages, prefetches, scripts' fetches and a 404: none are page views.
    await visit("/about", FIREFOX, { referer: "http://civic.test/reports?x=1" });
    await visit("/", GOOGLEBOT);
    await visit("/", "");
    await visit("/admin/test-page", FIREFOX);
    await visit("/", FIREFOX, { "sec-purpose": "prefetch" });
    await visit("/offline", FIREFOX, { "sec-fetch-dest": "empty" });
    await visit("/no-such-page", FIREFOX);
    // API and feed use: counted per endpoint, never as page views.
    expect((await visit("/api/v2/services.json", FIREFOX)).statusCode).toBe(200);
    expect((await visit("/reports.atom", FIREFOX)).statusCode).toBe(200);
    await t.app.analytics.flush();

    expect(await counts(t, "page", day)).toEqual({
      "/": 2,
      "/reports": 2,
      "/reports/:reference": 1,
      "/about": 2,
    });
    expect(await visitorsOn(t, day)).toBe(2);
    expect(await counts(t, "device", day)).toEqual({ desktop: 6, mobile: 1 });
    expect(await counts(t, "referrer", day)).toEqual({ "bbc.co.uk": 1 });
    expect(await counts(t, "endpoint", day)).toEqual({ "/api/v2/services.:format": 1, "/reports.atom": 1 });
  });

  it("keeps no address, user agent, query string or referrer URL anywhere in the database", async () => {
    for (const url of ["/", `/reports?${canary.query}=${canary.query}`, `/about?q=${canary.query}`]) {
      const res = await visit(
        url,
        canaryAgent,
        { referer: `https://example.org/${canary.query}?${canary.query}` },
        canary.address,
      );
      expect(res.statusCode).toBe(200);
    }
    await t.app.analytics.flush();
    expect((await counts(t, "referrer", "2026-11-20"))["example.org"]).toBe(3);
    const dump = await dumpDatabase(t.db.database);
    expect(dump).toContain("analytics_counts");
    for (const value of [canary.query, canary.agent, canary.address, "news.bbc.co.uk", "Firefox"]) {
      expect(dump, value).not.toContain(value);
    }
  });

  it("sets no cookie for anonymous visitors", async () => {
    const paths = [...sitePages(FEATURES).map((p) => p.path), "/stats.json", `/reports/${reference}`];
    for (const path of paths) {
      const res = await visit(path, FIREFOX, { referer: "https://example.com/" });
      expect(res.headers["set-cookie"], path).toBeUndefined();
    }
  });

  it("agrees on the day's salt across processes, rotates it daily and deletes it after two days", async () => {
    const second = await buildApp(t.config, { logger: false, database: t.db.reopen(), now: () => clock });
    await second.ready();
    try {
      clock = new Date("2026-11-21T08:00:00.000Z");
      const agent = `${FIREFOX} salt-test`;
      await visit("/", agent);
      await second.inject({
        method: "GET",
        url: "/about",
        headers: { "user-agent": agent },
        remoteAddress: "192.0.2.10",
      });
      await t.app.analytics.flush();
      await second.analytics.flush();
      expect(await visitorsOn(t, "2026-11-21")).toBe(1);

      const db = t.db.database.db;
      const salts = async () =>
        (await db.selectFrom("analytics_salts").select(["day", "salt"]).orderBy("day").execute()).map((r) => r.day);
      expect(await salts()).toEqual(["2026-11-20", "2026-11-21"]);
      const [a, b] = await db.selectFrom("analytics_salts").select("salt").orderBy("day").execute();
      expect(a?.salt).not.toBe(b?.salt);
      // The same person on two days gets two unrelated hashes.
      const hashes = await db.selectFrom("analytics_visitors").select(["day", "visitor"]).execute();
      const sameAsToday = hashes.filter((h) => h.day === "2026-11-20").map((h) => h.visitor);
      const today = hashes.filter((h) => h.day === "2026-11-21").map((h) => h.visitor);
      expect(today.some((h) => sameAsToday.includes(h))).toBe(false);

      const job = analyticsRollupJob(db);
      const signal = new AbortController().signal;
      // Two minutes after midnight a finished day is rolled up (late writes of other processes have come by then).
      clock = new Date("2026-11-22T00:01:00.000Z");
      expect(await job.run({ now: clock, signal })).toEqual({ visitors: 3, salts: 1 });
      expect(await salts()).toEqual(["2026-11-21"]);
      // Only counts remain for finished days: the 20th had three visitors (two browsers, the canary).
      expect(await counts(t, "visitors", "2026-11-20")).toEqual({ "": 3 });
      expect(await visitorsOn(t, "2026-11-21")).toBe(1);
      clock = new Date("2026-11-22T00:10:00.000Z");
      expect(await job.run({ now: clock, signal })).toEqual({ visitors: 1, salts: 0 });
      expect(await counts(t, "visitors", "2026-11-21")).toEqual({ "": 1 });
      expect(await db.selectFrom("analytics_visitors").selectAll().execute()).toEqual([]);
      clock = new Date("2026-11-23T00:10:00.000Z");
      expect((await job.run({ now: clock, signal }))?.salts).toBe(1);
      expect(await salts()).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it("still answers pages when counting cannot write, and its log lines carry no visitor data", async () => {
    const lines: string[] = [];
    const other = await createTestApp(dialect, {
      now: () => clock,
      logger: { level: "info", stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      await other.db.database.db.schema.dropTable("analytics_counts").execute();
      await other.db.database.db.schema.dropTable("analytics_salts").execute();
      const res = await other.app.inject({
        url: `/?${canary.query}=1`,
        headers: { "user-agent": canaryAgent, referer: `https://example.org/${canary.query}` },
        remoteAddress: canary.address,
      });
      expect(res.statusCode).toBe(200);
      await other.app.analytics.flush();
      const analyticsLines = lines.filter((l) => l.includes("analytics"));
      expect(analyticsLines.length).toBeGreaterThan(0);
      for (const value of [canary.query, canary.agent, canary.address, "example.org"]) {
        expect(analyticsLines.join("\n")).not.toContain(value);
      }
    } finally {
      await other.close();
    }
  });
});

describeEachDb("visitor statistics around midnight", (dialect) => {
  let t: TestApp;
  let clock = new Date("2026-11-20T23:59:59.900Z");

  beforeAll(async () => {
    t = await createTestApp(dialect, { now: () => clock });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it("counts each view on its own day even when one flush carries two days", async () => {
    const visit = () =>
      t.app.inject({ method: "GET", url: "/", headers: { "user-agent": FIREFOX }, remoteAddress: "192.0.2.10" });
    expect((await visit()).statusCode).toBe(200);
    expect((await visit()).statusCode).toBe(200);
    clock = new Date("2026-11-21T00:00:00.100Z");
    expect((await visit()).statusCode).toBe(200);
    await t.app.analytics.flush();
    expect(await counts(t, "page", "2026-11-20")).toEqual({ "/": 2 });
    expect(await counts(t, "page", "2026-11-21")).toEqual({ "/": 1 });
    // The same browser on two days: one visitor each day, hashed with that day's salt.
    expect(await visitorsOn(t, "2026-11-20")).toBe(1);
    expect(await visitorsOn(t, "2026-11-21")).toBe(1);
    const hashes = await t.db.database.db.selectFrom("analytics_visitors").select("visitor").execute();
    expect(new Set(hashes.map((h) => h.visitor)).size).toBe(2);
  });
});
