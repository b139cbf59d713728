import { afterAll, beforeAll, expect, it } from "vitest";
import { expectFamilyError } from "../hardening/family.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";

/** The methods a client may try: every one Fastify routes (QUERY is RFC 10008's). */
const TRIED = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"] as const;

/** A route pattern as a regular expression over concrete paths (`:name` one segment or part of one, `*` anything). */
function patternRegExp(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z_]+|\*)/)
    .map((part) =>
      part === "*" ? ".*" : part.startsWith(":") ? "[^/]+?" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`);
}

/** A concrete path for a pattern: parameters filled with values no static route has. */
function concrete(url: string): string {
  return url.replace(/:([A-Za-z_]+)/g, (_, name: string) => (name === "format" ? "json" : "x7k2q9"));
}

/**
 * Every registered path answers a method it lacks with 405 and an Allow header naming exactly the methods it has,
 * in its family's format (HTML page, problem+json, Open311 error list); HEAD wherever GET; unknown paths stay 404
 * and OPTIONS on the APIs stays the CORS preflight.
 */
describeEachDb("Methods on the wire", (dialect) => {
  let t: TestApp;
  let routes: { method: string; url: string }[];
  let staffCookie: string;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    routes = t.app.civic.routes;
    staffCookie = (await signInAs(t.app, "admin@example.org", "admin")).cookie;
  });
  afterAll(async () => {
    await t?.close();
  });

  const allowedFor = (path: string) =>
    new Set(routes.filter((r) => patternRegExp(r.url).test(path)).map((r) => r.method));
  const listed = (allow: unknown) =>
    new Set(
      String(allow)
        .split(",")
        .map((m) => m.trim()),
    );

  it("answers 405 with Allow for a method a path lacks, on every registered path", async () => {
    const paths = [...new Set(routes.filter((r) => !r.url.includes("*")).map((r) => concrete(r.url)))];
    expect(paths.length).toBeGreaterThan(50);
    let checked = 0;
    for (const path of paths) {
      const allowed = allowedFor(path);
      const missing = TRIED.filter((m) => !allowed.has(m));
      // Two methods per path (the first missing one and TRACE or QUERY), to keep the walk short.
      const tried = [...new Set([missing[0], missing.includes("TRACE") ? "TRACE" : missing.at(-1)])].filter(
        (m): m is (typeof TRIED)[number] => m !== undefined,
      );
      for (const method of tried) {
        const res = await t.app.inject({
          method: method as "GET",
          url: path,
          headers: {
            ...(method === "QUERY" || method === "TRACE" ? {} : { "content-type": "application/json" }),
            // The staff console's guard comes first: anonymous visitors are sent to sign in (below).
            ...(path.startsWith("/admin") ? { cookie: staffCookie } : {}),
          },
          payload: method === "QUERY" || method === "TRACE" ? undefined : "{",
        });
        if (path === "/healthz" || path === "/readyz") {
          // Problem details, but not an API: no CORS.
          expect(res.statusCode, `${method} ${path}`).toBe(405);
          expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
        } else expectFamilyError(res, path, 405, method);
        expect(listed(res.headers.allow), `${method} ${path}`).toEqual(allowed);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("answers the examples of the finding: POST /api/v1/businesses, TRACE anywhere, QUERY on the APIs", async () => {
    const cases = [
      ["POST", "/api/v1/businesses", "GET, HEAD, OPTIONS"],
      ["TRACE", "/", "GET, HEAD"],
      ["TRACE", "/api/v2/requests.json", "GET, HEAD, POST, OPTIONS"],
      ["QUERY", "/api/v2/requests.json", "GET, HEAD, POST, OPTIONS"],
      ["QUERY", "/api/v1/businesses", "GET, HEAD, OPTIONS"],
      ["DELETE", "/reports", "GET, HEAD"],
      ["PUT", "/openapi.yaml", "GET, HEAD, OPTIONS"],
      // A method Node parses but Fastify routes nowhere.
      ["PROPFIND", "/", "GET, HEAD"],
    ] as const;
    for (const [method, url, allow] of cases) {
      const res = await t.app.inject({ method: method as "GET", url });
      expectFamilyError(res, url, 405, method);
      expect(listed(res.headers.allow), `${method} ${url}`).toEqual(listed(allow));
    }
    const open311 = await t.app.inject({ method: "DELETE", url: "/api/v2/requests/ABCD-1234.xml" });
    expect(open311.statusCode).toBe(405);
    expect(open311.headers["content-type"]).toBe("text/xml; charset=utf-8");
    expect(open311.body).toContain("<code>405</code>");
    const problem = await t.app.inject({ method: "POST", url: "/api/v1/businesses" });
    expect(problem.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(problem.json()).toMatchObject({ status: 405, code: "method_not_allowed" });
  });

  it("keeps the staff console's guard first: an anonymous visitor is sent to sign in, whatever the method", async () => {
    const res = await t.app.inject({ method: "PUT", url: "/admin/projects" });
    expect(res.statusCode).toBe(303);
  });

  it("keeps unknown paths 404 and OPTIONS on the APIs the CORS preflight", async () => {
    for (const [method, url] of [
      ["TRACE", "/no/such/page"],
      ["POST", "/api/v1/nothing-here"],
      ["DELETE", "/api/v2/nothing-here.json"],
      ["DELETE", "/data/nothing-here"],
    ] as const) {
      expectFamilyError(await t.app.inject({ method: method as "GET", url }), url, 404, method);
    }
    // Hostile paths asked with a method they lack: a 4xx, never a 5xx.
    for (const url of [`/reports/${"x".repeat(300)}`, "/reports/%zz", `/api/v2/requests/${"9".repeat(500)}.json`]) {
      const res = await t.app.inject({ method: "DELETE", url });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    for (const url of ["/api/v1/businesses", "/api/v2/requests.json", "/api/v2/nothing-here.json", "/openapi.yaml"]) {
      const res = await t.app.inject({
        method: "OPTIONS",
        url,
        headers: { origin: "https://app.example.org", "access-control-request-method": "GET" },
      });
      expect(res.statusCode, url).toBe(204);
      expect(res.headers["access-control-allow-origin"], url).toBe("*");
    }
  });

  it("answers HEAD wherever GET, with the same headers and no body", async () => {
    const gets = [...new Set(routes.filter((r) => r.method === "GET").map((r) => r.url))];
    for (const url of gets) {
      expect(
        routes.some((r) => r.method === "HEAD" && r.url === url),
        url,
      ).toBe(true);
    }
    for (const url of [
      "/",
      "/reports",
      "/api/v1/businesses",
      "/api/v2/services.json",
      "/openapi.yaml",
      "/sitemap.xml",
    ]) {
      const get = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "identity" } });
      const head = await t.app.inject({ method: "HEAD", url, headers: { "accept-encoding": "identity" } });
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.body, url).toBe("");
      for (const name of ["content-type", "cache-control", "etag", "access-control-allow-origin", "vary"]) {
        expect(head.headers[name], `${url} ${name}`).toBe(get.headers[name]);
      }
    }
  });
});
