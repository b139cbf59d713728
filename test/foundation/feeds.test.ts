import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/**
 * Every Atom feed the app serves, found in its route list (a GET route ending in `.atom`, plus the category feeds
 * that `/reports/:reference` serves for `<code>.atom`): conditional (strong ETag, Last-Modified, 304), cacheable
 * and open to any origin. A new feed route is walked too, once it has a way to fill its parameters below.
 */
describeEachDb("Atom feeds on the wire", (dialect) => {
  let t: TestApp;
  let feeds: string[];

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const db = t.app.civic.database.db;
    // The demo village has reports; give the other feeds an entry each.
    const at = new Date(t.app.civic.now().getTime() - 86_400_000).toISOString();
    const project = await db.selectFrom("projects").select("id").orderBy("id").executeTakeFirstOrThrow();
    await db
      .insertInto("project_updates")
      .values({ project_id: project.id, title: "Reeds planted", body: "By the pond.", posted_at: at })
      .execute();
    await db
      .insertInto("ideas")
      .values({
        title: "A bench by the pond",
        description: "Somewhere to sit.",
        category: null,
        place_id: null,
        location_text: null,
        photo_hash: null,
        status: "open",
        response: null,
        project_id: null,
        account_id: null,
        email: null,
        created_at: at,
        published_at: at,
        updated_at: at,
      })
      .execute();
    await db
      .insertInto("newsletter_issues")
      .values({
        title: "Spring news",
        body: "Hello.",
        status: "sent",
        created_at: at,
        updated_at: at,
        send_started_at: at,
        sent_at: at,
      })
      .execute();
    const category = await db.selectFrom("categories").select("code").orderBy("code").executeTakeFirstOrThrow();
    const params: Record<string, string> = { id: project.id };
    const atomRoutes = [
      ...new Set(t.app.civic.routes.filter((r) => r.method === "GET" && r.url.endsWith(".atom")).map((r) => r.url)),
    ];
    expect(atomRoutes.sort()).toEqual([
      "/ideas.atom",
      "/newsletter/archive.atom",
      "/projects/:id/updates.atom",
      "/reports.atom",
    ]);
    feeds = [
      ...atomRoutes.map((url) =>
        url.replace(/:(\w+)/g, (_, name: string) => {
          const value = params[name];
          if (value === undefined) throw new Error(`no value for :${name} of ${url}: add one to this test`);
          return encodeURIComponent(value);
        }),
      ),
      `/reports/${encodeURIComponent(category.code)}.atom`,
      "/reports.atom?status=open",
    ];
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, headers: { "accept-encoding": "identity", ...headers } });

  it("give a strong ETag from the bytes, Last-Modified of the newest entry, a public Cache-Control and CORS", async () => {
    for (const url of feeds) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toBe("application/atom+xml; charset=utf-8");
      const etag = String(res.headers.etag);
      expect(etag, url).toMatch(/^"[^"]+"$/);
      expect(res.headers["cache-control"], url).toMatch(/^public, max-age=\d+/);
      expect(res.headers["access-control-allow-origin"], url).toBe("*");
      expect(String(res.headers["access-control-expose-headers"]), url).toMatch(/ETag/i);
      expect(String(res.headers["access-control-expose-headers"]), url).toMatch(/Last-Modified/i);
      const updated = /<updated>([^<]+)<\/updated>/.exec(res.body)?.[1];
      const entries = res.body.includes("<entry>");
      if (entries) {
        expect(res.headers["last-modified"], url).toBe(new Date(String(updated)).toUTCString());
      }
      // The same bytes, the same tag.
      expect((await get(url)).headers.etag, url).toBe(etag);
    }
  });

  it("answer 304 to If-None-Match, and to If-Modified-Since when there is no If-None-Match", async () => {
    for (const url of feeds) {
      const first = await get(url);
      const etag = String(first.headers.etag);
      const lastModified = first.headers["last-modified"];

      const byTag = await get(url, { "if-none-match": etag });
      expect(byTag.statusCode, url).toBe(304);
      expect(byTag.body, url).toBe("");
      expect(byTag.headers.etag, url).toBe(etag);
      expect(byTag.headers["cache-control"], url).toBe(first.headers["cache-control"]);
      expect(byTag.headers["access-control-allow-origin"], url).toBe("*");
      expect((await get(url, { "if-none-match": `"other", W/${etag}` })).statusCode, url).toBe(304);
      expect((await get(url, { "if-none-match": '"other"' })).statusCode, url).toBe(200);

      if (lastModified === undefined) continue;
      expect((await get(url, { "if-modified-since": lastModified })).statusCode, url).toBe(304);
      const later = new Date(Date.parse(lastModified) + 3600_000).toUTCString();
      expect((await get(url, { "if-modified-since": later })).statusCode, url).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 3600_000).toUTCString();
      expect((await get(url, { "if-modified-since": earlier })).statusCode, url).toBe(200);
      expect((await get(url, { "if-modified-since": "yesterday" })).statusCode, url).toBe(200);
      // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
      expect((await get(url, { "if-none-match": '"other"', "if-modified-since": later })).statusCode, url).toBe(200);
    }
  });

  it("answer HEAD with the same headers and no body", async () => {
    for (const url of feeds) {
      const full = await get(url);
      const head = await t.app.inject({ method: "HEAD", url, headers: { "accept-encoding": "identity" } });
      expect(head.statusCode, url).toBe(200);
      expect(head.body, url).toBe("");
      for (const name of ["etag", "last-modified", "content-type", "cache-control", "access-control-allow-origin"]) {
        expect(head.headers[name], `${url} ${name}`).toBe(full.headers[name]);
      }
      const headNotModified = await t.app.inject({
        method: "HEAD",
        url,
        headers: { "if-none-match": String(full.headers.etag) },
      });
      expect(headNotModified.statusCode, url).toBe(304);
    }
  });

  it("change their ETag and Last-Modified when an entry is added", async () => {
    const before = await get("/reports.atom");
    const db = t.app.civic.database.db;
    const row = await db
      .selectFrom("reports")
      .select(["id", "updated_at"])
      .where("visibility", "=", "public")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const later = new Date(Date.parse(String(before.headers["last-modified"])) + 60_000).toISOString();
    await db.updateTable("reports").set({ updated_at: later }).where("id", "=", row.id).execute();
    const after = await get("/reports.atom", { "if-none-match": String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const since = await get("/reports.atom", { "if-modified-since": String(before.headers["last-modified"]) });
    expect(since.statusCode).toBe(200);
  });
});
