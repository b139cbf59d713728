import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AccessLogController, loggerOptions } from "../../src/core/http/logger.js";
import { TokenParams } from "../../src/core/tokens.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/** A recognisable token for one request: base64url, 43 characters like the ones we hand out. */
const MARK = "LeakCheck";
let counter = 0;
function token(): string {
  counter++;
  return `${MARK}${counter.toString(36)}`.padEnd(43, "Q");
}

/** A concrete path for a route: its secret parameters given `secret`, `:format` json, every other one 1. */
function fill(url: string, secret: readonly string[], value: string): string {
  return url.replace(/:([A-Za-z_]+)/g, (_, name: string) =>
    secret.includes(name) ? value : name === "format" ? "json" : "1",
  );
}

/**
 * Issue 33 #4: a link's token is a credential, and docs/operations.md "Logs" promises that none reaches a log line.
 * Every route that declares a secret path parameter (a params schema with `token`, or `config.secretParams`) is read
 * from the app's own route list and requested through the real logger, the way it is meant and in the ways it fails
 * (too long, an extra segment, a method it lacks, a broken %-encoding, a 304), with token-like query parameters too:
 * no line written holds the token.
 */
describeEachDb("link tokens never reach the log", (dialect) => {
  let t: TestApp;
  const lines: string[] = [];
  const accessLog = new AccessLogController();

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        cb();
      },
    });
    const options = loggerOptions("info");
    t = await createTestApp(dialect, {
      seed: true,
      env: { LOG_LEVEL: "info", RATE_LIMIT_WRITE_MAX: "100000" },
      logger: typeof options === "object" ? { ...options, stream } : options,
      logController: accessLog,
      assets: { url: (name) => `/assets/${name}` },
      routes(app) {
        // A route that fails, and logs its request on the way (Fastify's own error lines do, with `req`).
        app.get("/test-failing-link/:token", { schema: { hide: true, params: TokenParams } }, (request) => {
          request.log.warn({ req: request }, "about to fail");
          throw new Error(`the handler failed on ${(request.params as { token: string }).token}`);
        });
        // A link whose page can be revalidated: its 304s are counted in the summary line, by path.
        app.get("/test-etag-link/:token", { schema: { hide: true, params: TokenParams } }, (request, reply) => {
          reply.header("etag", '"same"');
          return request.headers["if-none-match"] === '"same"' ? reply.code(304).send() : reply.send("the page");
        });
        // A secret that is not called `token`, declared in the route's config.
        app.get("/test-code-link/:code", { schema: { hide: true }, config: { secretParams: ["code"] } }, () => "ok");
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const secretRoutes = () =>
    t.app.civic.routes.filter((r) => ((r as { secretParams?: string[] }).secretParams ?? []).length > 0) as {
      method: string;
      url: string;
      secretParams: string[];
    }[];

  it("knows which routes carry a secret in their path", () => {
    const urls = secretRoutes().map((r) => `${r.method} ${r.url}`);
    for (const known of [
      "GET /sign-in/link/:token",
      "GET /my-data/open/:token",
      "GET /newsletter/confirm/:token",
      "GET /reports/updates/unsubscribe/:token",
      "GET /test-failing-link/:token",
      "GET /test-code-link/:code",
    ]) {
      expect(urls).toContain(known);
    }
    // Routes without a secret are not among them.
    expect(urls).not.toContain("GET /reports/:ref");
  });

  it("writes no token of any such route in any log line", async () => {
    const routes = secretRoutes();
    expect(routes.length).toBeGreaterThan(15);
    lines.length = 0;
    let requests = 0;
    const send = async (method: string, url: string, headers: Record<string, string> = {}) => {
      requests++;
      return t.app.inject({ method: method as "GET", url, headers });
    };
    for (const r of routes) {
      const path = fill(r.url, r.secretParams, token());
      // As meant, with token-like query parameters (also with an encoded name, and double-encoded).
      const res = await send(
        r.method,
        `${path}?token=${token()}&%74oken=${token()}&t%256Fken=${token()}&${r.secretParams[0]}=${token()}`,
      );
      // A 304, where the answer can be revalidated: counted in the summary line.
      if (r.method === "GET" && res.headers.etag) {
        await send("GET", fill(r.url, r.secretParams, token()), { "if-none-match": String(res.headers.etag) });
      }
      // HEAD, which Fastify derives from every GET.
      if (r.method === "GET") await send("HEAD", fill(r.url, r.secretParams, token()));
      // Decoded or not: an encoded character in the route's static part still reaches the route.
      await send(
        r.method,
        fill(
          r.url.replace(/^\/([a-z])/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`),
          r.secretParams,
          token(),
        ),
      );
      // Failing: too long for the router, too long for the schema, an extra segment, a broken %-encoding,
      // a method the route lacks.
      await send(r.method, fill(r.url, r.secretParams, `${token()}${"Q".repeat(300)}`));
      await send(r.method, fill(r.url, r.secretParams, `${token()}${"Q".repeat(120)}`));
      await send(r.method, `${fill(r.url, r.secretParams, token())}/extra`);
      await send(r.method, fill(r.url, r.secretParams, `${token()}%zz`));
      await send("PATCH", fill(r.url, r.secretParams, token()));
    }
    accessLog.writeNotModified();
    expect(lines.filter((l) => l.includes('"msg":"not modified"')).join("\n")).toContain("/test-etag-link/[redacted]");
    expect(lines.filter((l) => l.includes("the handler failed on [redacted]")).length).toBeGreaterThan(0);
    // Every request left its line (or its count), so the check below looked at something.
    const access = lines.filter((l) => l.includes('"msg":"request"')).length;
    expect(access + (lines.some((l) => l.includes('"msg":"not modified"')) ? 1 : 0)).toBeGreaterThan(requests / 2);
    const leaks = lines.filter((l) => l.includes(MARK));
    expect(leaks.slice(0, 5)).toEqual([]);
  });

  it("keeps the rest of the address readable", async () => {
    lines.length = 0;
    const secret = token();
    await t.app.inject({
      url: `/sign-in/link/${secret}?next=%2Freports`,
      headers: { "x-request-id": "secret-path-1" },
    });
    await t.app.inject({ url: `/test-code-link/${secret}`, headers: { "x-request-id": "secret-path-2" } });
    await t.app.inject({ url: `/sign-in/link/${secret}/more`, headers: { "x-request-id": "secret-path-3" } });
    const byId = (id: string) =>
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.reqId === id && l.msg === "request");
    expect(byId("secret-path-1")).toMatchObject({ url: "/sign-in/link/[redacted]?next=%2Freports", statusCode: 410 });
    expect(byId("secret-path-2")).toMatchObject({ url: "/test-code-link/[redacted]", statusCode: 200 });
    expect(byId("secret-path-3")).toMatchObject({ url: "/sign-in/link/[redacted]/more", statusCode: 404 });
  });

  it("redacts addresses however often they were percent-encoded", async () => {
    lines.length = 0;
    await t.app.inject({ url: "/reports?q=someone.private%2540example.org" });
    await t.app.inject({ url: "/reports?q=other.person%252540example%252Eorg" });
    await t.app.inject({ url: "/reports?q=third%40example%2Eorg" });
    const all = lines.join("\n");
    expect(all).toContain("/reports?q=");
    expect(all).not.toMatch(/someone\.private|other\.person|third/);
  });
});
