import { Writable } from "node:stream";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loggerOptions } from "../../src/core/http/logger.js";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import {
  createTestApp,
  createTestDatabase,
  describeEachDb,
  formToken,
  type TestApp,
  testConfig,
} from "../helpers/app.js";

describeEachDb("app shell", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it("GET /healthz answers ok when the database answers", async () => {
    const res = await t.app.inject("/healthz");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
    expect(res.headers["cache-control"]).toBe("no-store");
  });

  it("serves every page of the site map that exists, with the shell", async () => {
    for (const page of sitePages(FEATURES)) {
      if (!t.app.hasRoute({ method: "GET", url: page.path })) continue;
      const res = await t.app.inject(page.path);
      expect(res.statusCode, page.path).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      const html = res.body;
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(html).toContain('<html lang="en-GB">');
      expect(html).toContain('<a class="skip-link" href="#main">');
      expect(html).toContain('<main id="main"');
      expect(html).toContain('<nav class="site-nav" aria-label="Main">');
      expect(html).toMatch(/not a council service/);
      expect(html).toMatch(/Not for emergencies/);
      expect(html.match(/<h1[\s>]/g)?.length, `${page.path} has one h1`).toBe(1);
    }
  });

  it("links every area of the mission from the navigation", async () => {
    const html = (await t.app.inject("/")).body;
    for (const label of [
      "Report an issue",
      "Reports",
      "Ideas",
      "Projects",
      "Volunteer",
      "Newsletter",
      "Businesses",
      "Councillors",
    ]) {
      expect(html).toMatch(new RegExp(`<a href="/[a-z]+"[^>]*>${label}</a>`));
    }
  });

  it("sends a strict Content-Security-Policy and other security headers on pages", async () => {
    const res = await t.app.inject("/about");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Map tiles come through this site (src/maps): no other origin for images.
    expect(csp).toContain("img-src 'self' data: blob:;");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)(?![^>]*application\/ld\+json)[^>]*>/);
  });

  it("gives each request an id and echoes a sane incoming one", async () => {
    const a = await t.app.inject("/healthz");
    expect(a.headers["x-request-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-z]{6,}$/);
    const a2 = await t.app.inject("/healthz");
    expect(a2.headers["x-request-id"]).not.toBe(a.headers["x-request-id"]);
    const b = await t.app.inject({ url: "/healthz", headers: { "x-request-id": "abc12345-trace" } });
    expect(b.headers["x-request-id"]).toBe("abc12345-trace");
    const c = await t.app.inject({ url: "/healthz", headers: { "x-request-id": "<script>" } });
    expect(c.headers["x-request-id"]).not.toBe("<script>");
  });

  it("answers unknown pages with an accessible HTML 404", async () => {
    const res = await t.app.inject("/no-such-page");
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("Page not found");
    expect(res.body).toContain('<main id="main"');

    // A form post to an address with nothing at it is a 404 too (its body is never read, so no form-token check).
    const post = await t.app.inject({
      method: "POST",
      url: "/no-such-page",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "a=1",
    });
    expect(post.statusCode).toBe(404);
    expect(post.body).toContain("Page not found");
  });

  it("answers errors on /api/v1 as problem+json and on /api/v2 as Open311 error lists", async () => {
    const v1 = await t.app.inject("/api/v1/nothing-here");
    expect(v1.statusCode).toBe(404);
    expect(v1.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(v1.json()).toMatchObject({ status: 404, title: "Not Found", code: "not_found" });
    expect(v1.json().detail).toEqual(expect.any(String));

    // The installed app's endpoint is its own API scope under /api/app.
    const app = await t.app.inject({ method: "POST", url: "/api/app/nothing-here" });
    expect(app.statusCode).toBe(404);
    expect(app.headers["content-type"]).toBe("application/problem+json; charset=utf-8");

    const v2json = await t.app.inject("/api/v2/nothing-here.json");
    expect(v2json.statusCode).toBe(404);
    expect(v2json.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(v2json.json()).toEqual([{ code: 404, description: expect.any(String) }]);

    const v2xml = await t.app.inject("/api/v2/nothing-here.xml");
    expect(v2xml.statusCode).toBe(404);
    expect(v2xml.headers["content-type"]).toBe("text/xml; charset=utf-8");
    expect(v2xml.body).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?><errors><error><code>404<\/code><description>[^<]+<\/description><\/error><\/errors>$/,
    );
  });

  it("lists councillors and projects from the demo village", async () => {
    const councillors = await t.app.inject("/councillors");
    expect(councillors.statusCode).toBe(200);
    expect(councillors.body).toMatch(/mailto:[^"]+@example\.org/);
    const projects = await t.app.inject("/projects");
    const link = /href="(\/projects\/[a-z0-9-]+)"/.exec(projects.body)?.[1];
    expect(link).toBeDefined();
    const one = await t.app.inject(link!);
    expect(one.statusCode).toBe(200);
    expect((await t.app.inject("/projects/not-a-project")).statusCode).toBe(404);
  });
});

describeEachDb("form protection and limits", (dialect) => {
  let t: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  const received: unknown[] = [];
  beforeAll(async () => {
    t = await createTestDatabase(dialect);
    const config = testConfig(t.dataDir, t.url ? { DATABASE_URL: t.url } : {});
    app = await buildApp(config, { logger: false, database: t.database });
    // A form route like the ones features add, to exercise the shared protection.
    app.get("/test-form", async (request, reply) => {
      const token = app.civic.formTokens.issue();
      return reply.type("text/html").send(`<form><input type="hidden" name="_csrf" value="${token}"></form>`);
    });
    app.get("/test-boom", async () => {
      throw new Error("internal detail at /srv/app/secret.ts:12");
    });
    app.get("/api/v1/test-boom", async () => {
      throw new Error("internal detail at /srv/app/secret.ts:12");
    });
    app.post("/test-form", async (request) => {
      received.push(request.body);
      return { ok: true };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await t.cleanup();
  });

  it("accepts a form post with a valid token from our own origin", async () => {
    const token = await formToken(app, "/test-form");
    const res = await app.inject({
      method: "POST",
      url: "/test-form",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://civic.test" },
      payload: `_csrf=${encodeURIComponent(token)}&name=Jo`,
    });
    expect(res.statusCode).toBe(200);
    expect(received.at(-1)).toMatchObject({ name: "Jo" });
  });

  it("refuses a form post without a token, with a forged token, or from another site", async () => {
    const before = received.length;
    const noToken = await app.inject({
      method: "POST",
      url: "/test-form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "name=Jo",
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(noToken.body).toMatch(/expired or was not sent from this website/);

    const token = await formToken(app, "/test-form");
    const forged = await app.inject({
      method: "POST",
      url: "/test-form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `_csrf=${encodeURIComponent(`${token.slice(0, -2)}xx`)}&name=Jo`,
    });
    expect(forged.statusCode).toBe(403);

    const crossSite = await app.inject({
      method: "POST",
      url: "/test-form",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      },
      payload: `_csrf=${encodeURIComponent(token)}&name=Jo`,
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toMatch(/another website/);
    expect(received.length).toBe(before);
  });

  it("limits request bodies and says so in the route family's format", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const page = await app.inject({
      method: "POST",
      url: "/test-form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `name=${big}`,
    });
    expect(page.statusCode).toBe(413);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const api = await app.inject({
      method: "POST",
      url: "/api/v1/businesses",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ big }),
    });
    expect([404, 405, 413]).toContain(api.statusCode);
    expect(api.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  });

  it("turns an unexpected failure into a 500 without a stack trace, quoting the request id", async () => {
    const page = await app.inject("/test-boom");
    expect(page.statusCode).toBe(500);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("Sorry, something went wrong");
    expect(page.body).toContain(String(page.headers["x-request-id"]));
    expect(page.body).not.toMatch(/secret\.ts|internal detail|at .*\.ts:/);
    const api = await app.inject("/api/v1/test-boom");
    expect(api.statusCode).toBe(500);
    expect(api.json()).toMatchObject({ status: 500, code: "internal" });
    expect(api.body).not.toMatch(/secret\.ts|internal detail/);
  });
});

describe("database", () => {
  describeEachDb("migrations", (dialect) => {
    it("creates every table and runs again as a no-op", async () => {
      const t = await createTestDatabase(dialect);
      try {
        const tables = await t.database.db.introspection.getTables();
        const names = tables.map((x) => x.name);
        for (const name of [
          "businesses",
          "business_changes",
          "categories",
          "reports",
          "report_updates",
          "outbox",
          "api_keys",
          "places",
        ]) {
          expect(names).toContain(name);
        }
        const { migrateToLatest } = await import("../../src/core/db/migrations/index.js");
        expect(await migrateToLatest(t.database.db)).toEqual([]);
        if (dialect === "sqlite") {
          const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(t.database.db);
          expect(mode.rows[0]?.journal_mode).toBe("wal");
          const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(t.database.db);
          expect(fk.rows[0]?.foreign_keys).toBe(1);
        }
      } finally {
        await t.cleanup();
      }
    });

    it("stores and returns timestamps as the same UTC ISO strings", async () => {
      const t = await createTestDatabase(dialect);
      try {
        const at = "2026-03-29T01:30:00.000Z";
        await t.database.db
          .insertInto("projects")
          .values({
            id: "p",
            title: "t",
            summary: "s",
            body: "b",
            status: "active",
            started_on: "2026-03-29",
            lead: "l",
            volunteers_wanted: 1,
            created_at: at,
            updated_at: at,
          })
          .execute();
        const row = await t.database.db.selectFrom("projects").selectAll().executeTakeFirstOrThrow();
        expect(row.created_at).toBe(at);
        const later = await t.database.db
          .selectFrom("projects")
          .select("id")
          .where("created_at", ">", "2026-03-29T01:29:59.999Z")
          .execute();
        expect(later).toHaveLength(1);
      } finally {
        await t.cleanup();
      }
    });
  });
});

describeEachDb("health when the database is gone", (dialect) => {
  it("GET /healthz answers 503", async () => {
    const t = await createTestApp(dialect);
    try {
      await t.db.database.close();
      const res = await t.app.inject("/healthz");
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: "unavailable" });
    } finally {
      await t.close().catch(() => {});
    }
  });
});

describe("logs", () => {
  it("never carry email addresses from URLs or log calls", async () => {
    const t = await createTestDatabase("sqlite");
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const config = testConfig(t.dataDir, { LOG_LEVEL: "info" });
    const options = loggerOptions("info");
    const app = await buildApp(config, {
      database: t.database,
      logger: typeof options === "object" ? { ...options, stream } : options,
    });
    try {
      await app.inject("/status?email=someone.private%40example.org");
      app.log.info({ to: "someone.private@example.org" }, "mail for someone.private@example.org");
      const all = lines.join("");
      expect(all).toContain("[email]");
      expect(all).not.toMatch(/someone\.private/);
    } finally {
      await app.close();
      await t.cleanup();
    }
  });
});
