// One server under test, in its own process so it has a core to itself: `app` is the whole platform (buildApp),
// `routes` is a plain Fastify instance with only the business routes (to tell the cost of our code from the cost of
// the platform's global hooks), `app-logged` is the whole platform with the default log level (`-each`: with an
// access line for every 304 as well, LOG_NOT_MODIFIED=each; `-two-lines`: Fastify's default request logging instead of
// our access line), `static-headers` is that plus the app's security headers set from a precomputed
// object (what the app would cost if @fastify/helmet did not rebuild helmet on every request), `bare` is node:http sending the same prepared bytes with the same validators
// and headers (the app's security headers and a request id included).
// Reports its port over IPC.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.js";
import { buildSnapshot } from "../../src/businesses/dataset.js";
import { DATASET_SCHEMA_VERSION } from "../../src/businesses/model.js";
import { negotiateEncoding } from "../../src/businesses/representation.js";
import { noneMatchSatisfied } from "../../src/core/http/conditional.js";
import { CORS_HEADERS, DIRECTORY_CACHE_CONTROL } from "../../src/businesses/routes.js";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { businessRoutes } from "../../src/businesses/routes.js";
import { loadConfig } from "../../src/config.js";
import type { Civic } from "../../src/core/context.js";
import { FixedWindowLimiter } from "../../src/core/limits/fixed-window.js";
import { FormTokens } from "../../src/core/http/csrf.js";
import { openDatabase } from "../../src/core/db/database.js";
import { apiSecurityHeaders } from "../../src/core/http/security.js";

const mode = process.argv[2];
const config = loadConfig({
  DATA_DIR: process.env.BENCH_DATA_DIR,
  BASE_URL: "http://bench.test",
  SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
  // `app-logged` is the platform as deployed: the default LOG_LEVEL (info), JSON lines on stdout, which the parent
  // points at a file (or /dev/null); the other modes measure the code without logging.
  LOG_LEVEL: mode?.startsWith("app-logged") ? "info" : "silent",
  // `app-logged-each`: an access line for every 304 too, instead of the default once-a-minute count.
  LOG_NOT_MODIFIED: mode === "app-logged-each" ? "each" : "summary",
  SEED_DEMO: "false",
  NODE_ENV: "production",
});

/** Server-side time of every q search (request received to response written), sent to the parent when asked. */
const searchTimes: number[] = [];
function timeSearches(app: FastifyInstance): void {
  app.addHook("onResponse", (request, reply, done) => {
    if (request.url.includes("q=")) searchTimes.push(reply.elapsedTime);
    done();
  });
}
process.on("message", (m) => {
  if (m === "search-times") {
    process.send?.({ searchTimes: searchTimes.splice(0) });
  }
  // CPU time this process has used (user + system, µs): the parent divides by the responses in between.
  if (m === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
});

/** The security headers the app sends on an API answer (computed as the app computes them, without building it). */
function appSecurityHeaders(): Record<string, string> {
  return apiSecurityHeaders(config);
}

async function start(): Promise<number> {
  if (mode === "app" || mode?.startsWith("app-logged")) {
    const app = await buildApp(config, {
      assets: { url: (name) => `/assets/${name}` },
      // Fastify's default request logging ("incoming request" + "request completed"), what the app had before its
      // single access line; measured beside it in the same run.
      ...(mode === "app-logged-two-lines" ? { logController: new LogController() } : {}),
    });
    timeSearches(app);
    await app.listen({ port: 0, host: "127.0.0.1" });
    for (const worker of app.civic.workers) worker.start();
    await app.inject("/api/v1/businesses"); // builds the snapshot
    return (app.server.address() as AddressInfo).port;
  }
  const database = openDatabase({ databaseUrl: null, dataDir: config.dataDir });
  if (mode === "routes" || mode === "static-headers") {
    const app = Fastify({ logger: false });
    if (mode === "static-headers") {
      // What the platform would cost with its security headers computed once: the same headers the real app sends
      // (taken from one of its responses), set by one synchronous hook, plus the request id.
      const security = appSecurityHeaders();
      app.addHook("onRequest", (request, reply, done) => {
        reply.headers(security);
        reply.header("x-request-id", request.id);
        done();
      });
    }
    const civic = {
      config,
      database,
      site: { villageName: "Bench", councilName: "Bench", contactEmail: "bench@example.org", baseUrl: config.baseUrl },
      assets: { url: (name: string) => `/assets/${name}` },
      errorPages: { notFound: () => null, serverError: () => null },
      formTokens: new FormTokens(config.sessionSecret, () => Date.now()),
      limits: new FixedWindowLimiter(
        () => database.db,
        config.sessionSecret,
        () => new Date(),
      ),
      now: () => new Date(),
      workers: [],
      features: [],
      routes: [],
    } satisfies Civic;
    app.decorate("civic", civic);
    await app.register(businessRoutes);
    timeSearches(app);
    await app.listen({ port: 0, host: "127.0.0.1" });
    await app.inject("/api/v1/businesses");
    return (app.server.address() as AddressInfo).port;
  }
  const snap = await buildSnapshot(database.db, config.baseUrl);
  // The same bytes as the app: its security headers and a request id (a prefix and a counter, as the app makes it).
  // `bare-minimal` sends only the representation's own headers (what `bare` was until 2026-11-28). The headers that
  // never change are one object made once, copied for each response.
  const minimal = mode === "bare-minimal";
  const fixed: Record<string, string> = {
    ...(minimal ? {} : appSecurityHeaders()),
    ...CORS_HEADERS,
    "cache-control": DIRECTORY_CACHE_CONTROL,
    vary: "Accept-Encoding",
    "x-dataset-version": DATASET_SCHEMA_VERSION,
  };
  let counter = 0;
  const server = createServer((req, res) => {
    const coding = negotiateEncoding(req.headers["accept-encoding"]);
    const etag = snap.list.etag(coding);
    counter++;
    const headers: Record<string, string | number> = { ...fixed, etag };
    if (!minimal) headers["x-request-id"] = `bench000-${counter.toString(36).padStart(6, "0")}`;
    if (noneMatchSatisfied(req.headers["if-none-match"], etag)) {
      res.writeHead(304, headers).end();
      return;
    }
    const body = snap.list.body(coding);
    headers["content-type"] = "application/json";
    headers["content-length"] = body.length;
    if (coding !== "identity") headers["content-encoding"] = coding;
    res.writeHead(200, headers).end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

start().then(
  (port) => process.send?.({ port }),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
process.on("disconnect", () => process.exit(0));
