/**
 * Speed at a million reports (issue 15): every public read and the Open311 API against a cached dataset of N
 * reports (dataset.ts), on SQLite and PostgreSQL, with the server in its own process.
 *
 * 1. Plans: each scenario's request is run once in this process through an app whose database logs every query;
 *    each query is then timed alone (median of 5) and explained (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE).
 * 2. Latency: one client at a time, for `--seconds` per scenario: p50, p99, requests per second.
 * 3. Throughput: `--clients` clients at once on a few scenarios (POST included).
 * 4. Two instances (PostgreSQL): two server processes on the one database under the Open311 and business read load
 *    of `--clients` clients spread over both; every non-200 answer or failed request is an error.
 *
 * Run with `node bench/scale/run.mjs` (see README.md).
 */
import { type ChildProcess, fork } from "node:child_process";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import { type CompiledQuery, type LogEvent, sql } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import {
  type Database,
  type Dialect,
  openDatabase,
  PG_SESSION_OPTIONS,
  sqlitePath,
} from "../../src/core/db/database.js";
import { village } from "../../src/demo/village.js";
import { createApiKey } from "../../src/open311/keys.js";
import { type Dataset, openDataset } from "./dataset.js";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    size: { type: "string", default: "1000000" },
    seconds: { type: "string", default: "5" },
    clients: { type: "string", default: "4" },
    /** Comma list of parts: plans, latency, throughput, two. */
    only: { type: "string", default: "plans,latency,throughput,two" },
    /** Comma list of scenario names (substring match) to run; default all. */
    scenarios: { type: "string", default: "" },
    "generate-only": { type: "boolean", default: false },
    /**
     * Seconds of warm-up before each throughput scenario: a fresh server process takes 5-10 s of POSTs to reach
     * its steady rate (V8 compiles the hot code on background threads that share the two cores), see README.md.
     */
    warmup: { type: "string", default: "10" },
    /** Print each second's count of answers in the throughput part (to see a run settle). */
    "per-second": { type: "boolean", default: false },
  },
});
const DIALECTS: Dialect[] = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db as Dialect];
const SIZE = Number(opts.size);
const SECONDS = Number(opts.seconds);
const CLIENTS = Number(opts.clients);
const PARTS = new Set((opts.only ?? "").split(","));
const PICK = (opts.scenarios ?? "").split(",").filter(Boolean);
const WARMUP = Number(opts.warmup);
const MAX_REQUESTS = 200_000;

interface Scenario {
  name: string;
  /** The next request's path (and options): called once per request. */
  next: () => { path: string; init?: RequestInit };
  /** Run before each request, not timed (e.g. a change to the public data, so that no kept answer serves). */
  before?: () => Promise<void>;
  /** Latency target, ms (p99), or req/s for POST. */
  target?: string;
}

interface Result {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  rps: number;
}

/** Kept-alive connections for the load loops: node:http costs the client a fraction of what fetch() does. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request over the kept-alive agent; resolves with the status once the whole answer has been read. */
function send(url: string, init?: RequestInit): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = init?.body === undefined ? undefined : String(init.body);
    const headers: Record<string, string | number> = { ...(init?.headers as Record<string, string> | undefined) };
    if (body !== undefined) headers["content-length"] = Buffer.byteLength(body);
    const req = request(url, { method: init?.method ?? "GET", headers, agent }, (res) => {
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.resume();
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** `clients` loops of requests for `seconds` against the given bases (round robin); latencies in ms. */
async function load(
  bases: string[],
  s: Scenario,
  seconds: number,
  clients: number,
  perSecond = false,
): Promise<Result> {
  const latencies: number[] = [];
  const answersBySecond: number[] = [];
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end && latencies.length + errors < MAX_REQUESTS) {
        const { path, init } = s.next();
        const base = bases[n++ % bases.length] as string;
        await s.before?.();
        const t0 = performance.now();
        try {
          const status = await send(`${base}${path}`, init);
          const t1 = performance.now();
          latencies.push(t1 - t0);
          const second = Math.floor((t1 - started) / 1000);
          answersBySecond[second] = (answersBySecond[second] ?? 0) + 1;
          if (status !== 200) {
            errors++;
            if (errors <= 3) console.log(`    ${status} from ${path.slice(0, 80)}`);
          }
        } catch (error) {
          errors++;
          if (errors <= 3) console.log(`    failed: ${String(error)}`);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  if (perSecond) console.log(`    per second: ${Array.from(answersBySecond, (c) => c ?? 0).join(" ")}`);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { count: latencies.length, errors, p50: at(0.5), p99: at(0.99), rps: latencies.length / elapsed };
}

const rows: string[] = [];
function record(dialect: Dialect, part: string, name: string, r: Result, target = ""): void {
  const line = `| ${dialect} | ${part} | ${name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.rps.toFixed(0)} | ${r.count} | ${r.errors} | ${target} |`;
  rows.push(line);
  console.log(
    `  ${part.padEnd(10)} ${name.padEnd(34)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  ${r.rps.toFixed(0).padStart(6)} req/s  (${r.count} requests, ${r.errors} errors)`,
  );
}

/** An app database whose Kysely logs every query (for the plans); otherwise as openDatabase makes it. */
function loggingDatabase(ds: Dataset, log: (q: CompiledQuery, ms: number) => void): Database {
  const onLog = (e: LogEvent) => log(e.query, e.queryDurationMillis);
  return openDatabase({ databaseUrl: ds.url, dataDir: ds.dataDir, poolSize: 4, log: onLog });
}

function env(ds: Dataset): Record<string, string> {
  return {
    DATA_DIR: ds.dataDir,
    BASE_URL: "http://bench.test",
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
    NODE_ENV: "production",
    RATE_LIMIT_READ_MAX: "10000000",
    RATE_LIMIT_WRITE_MAX: "1000000",
    ...(ds.url ? { DATABASE_URL: ds.url } : {}),
  };
}

function startServer(serverPath: string, ds: Dataset): Promise<{ base: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = fork(serverPath, [], { env: { PATH: process.env.PATH ?? "", ...env(ds) }, stdio: "inherit" });
    child.once("message", (m) => resolve({ base: `http://127.0.0.1:${(m as { port: number }).port}`, child }));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/**
 * A change to the public data as every process sees it: the public read version moves (reports/data-version.ts),
 * as any write to a report, update, photo or place moves it, so no answer kept for the old version serves.
 */
function publicDataChanger(ds: Dataset): { change: () => Promise<void>; close: () => Promise<void> } {
  const db = openDatabase({ databaseUrl: ds.url, dataDir: ds.dataDir, poolSize: 1 });
  return {
    change: async () => {
      await sql`update public_data_version set n = n + 1 where slot = 0`.execute(db.db);
    },
    close: () => db.close(),
  };
}

async function scenarios(ds: Dataset, apiKey: string, change: () => Promise<void>): Promise<Scenario[]> {
  const db = openDatabase({ databaseUrl: ds.url, dataDir: ds.dataDir, poolSize: 1 });
  const candidates = Array.from({ length: 600 }, (_, k) => `BNCH-${String(((k * 1997) % SIZE) + 1).padStart(7, "0")}`);
  const sample = await db.db
    .selectFrom("reports")
    .select("reference")
    .where("visibility", "=", "public")
    .where("reference", "in", candidates)
    .execute();
  const refs = sample.map((r) => r.reference);
  // The report 100,000 places down the public list: where page 5,001 starts.
  const deep = await db.db
    .selectFrom("reports")
    .select("reference")
    .where("visibility", "=", "public")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(99_999)
    .limit(1)
    .executeTakeFirst();
  const deepCat = await db.db
    .selectFrom("reports")
    .select("reference")
    .where("visibility", "=", "public")
    .where("category_code", "=", "streetlight")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(9_999)
    .limit(1)
    .executeTakeFirst();
  // The generated references (BNCH-0000001) are not the shape a search box takes for a reference (K7QM-3X9P), so
  // one public report gets a reference of that shape for "search reference".
  const typedReference = "K7QM-3X9P";
  await db.db
    .updateTable("reports")
    .set({ reference: typedReference })
    .where("reference", "=", refs[1] ?? "")
    .execute();
  if (refs.length > 1) refs[1] = typedReference; // the report pages ask for it by its new reference
  await db.close();
  let i = 0;
  let posted = 0;
  let uncached = 0;
  const get = (name: string, path: string, target?: string): Scenario => ({ name, next: () => ({ path }), target });
  const { lat, lng } = village.centre;
  const b = village.bounds;
  const villageBox = [b.west, b.south, b.east, b.north].join(",");
  // About 200 m by 150 m around the centre: a street on a phone at zoom 18.
  const streetBox = [lng - 0.0015, lat - 0.0007, lng + 0.0015, lat + 0.0007].map((n) => n.toFixed(5)).join(",");
  /** The box moved by up to 1,000 steps of 0.000001° (7 cm) east and as many north: another answer of its size. */
  const shifted = (box: string, n: number) =>
    box
      .split(",")
      .map(Number)
      .map((v, k) => (v + (k % 2 === 0 ? n % 1000 : Math.floor(n / 1000) % 1000) * 0.000001).toFixed(6))
      .join(",");
  let moved = 0;
  return [
    get("open311 default", "/api/v2/requests.json", "p99 ≤ 20"),
    get("open311 service_code+status", "/api/v2/requests.json?service_code=streetlight&status=open"),
    get("open311 near here (300 m)", `/api/v2/requests.json?lat=${lat}&long=${lng}&radius=300`, "p99 ≤ 25"),
    // The same queries, each request a different page size (400 in turn, more than the answer cache holds): every
    // answer is built from the database, as after a change to the public data.
    {
      name: "open311 default, uncached",
      next: () => ({ path: `/api/v2/requests.json?page_size=${999 - (uncached++ % 400)}` }),
    },
    {
      name: "open311 near here (300 m), uncached",
      next: () => ({
        path: `/api/v2/requests.json?lat=${lat}&long=${lng}&radius=300&page_size=${999 - (uncached++ % 400)}`,
      }),
    },
    get("open311 one request", `/api/v2/requests/${refs[0]}.json`),
    get("/reports", "/reports", "p99 ≤ 50"),
    get("/reports deep page (keyset)", `/reports?page=5001&before=${deep?.reference}`, "p99 ≤ 50"),
    get("/reports?category", "/reports?category=streetlight", "p99 ≤ 50"),
    get("/reports?status", "/reports?status=fixed", "p99 ≤ 50"),
    get("/reports?category&status", "/reports?category=streetlight&status=investigating", "p99 ≤ 50"),
    get(
      "/reports?category deep (keyset)",
      `/reports?category=streetlight&page=501&before=${deepCat?.reference}`,
      "p99 ≤ 50",
    ),
    {
      name: "report page",
      next: () => ({ path: `/reports/${refs[i++ % refs.length]}` }),
      target: "p99 ≤ 50",
    },
    // Full-text search (issue 35): every generated report says "problem" (a million matches, the newest 1,000
    // ranked); its number is in one report's title and description; a reference typed in the box; a business search.
    get("search common word", "/reports?q=problem", "p99 ≤ 50"),
    get("search rare word", `/reports?q=${Number((refs[0] ?? "BNCH-1").slice(5))}`, "p99 ≤ 50"),
    get("search reference", `/reports?q=${typedReference.toLowerCase().replace("-", "+")}`, "p99 ≤ 50"),
    get("search businesses", "/businesses?q=pubs", "p99 ≤ 50"),
    get("map data (nearby.json)", `/report/nearby.json?category=pothole&lat=${lat}&lng=${lng}`, "p99 ≤ 50"),
    // The /reports map's data (/api/reports/map.json): the whole village as the page first shows it, and a street.
    // "uncached" moves the box a little on every request (a million boxes in turn), so every answer is built from the
    // database, as after a change to the public data.
    get("map, whole village (zoom 15)", `/api/reports/map.json?bbox=${villageBox}&zoom=15`, "p99 ≤ 50"),
    {
      name: "map, whole village, uncached",
      next: () => ({ path: `/api/reports/map.json?bbox=${shifted(villageBox, moved++)}&zoom=15` }),
    },
    // The same box each time, after a change to the public data: the answer and the kept cell sums are read again.
    {
      name: "map, whole village, after a change",
      next: () => ({ path: `/api/reports/map.json?bbox=${villageBox}&zoom=15` }),
      before: change,
      target: "p99 ≤ 50",
    },
    get("map, street level (zoom 18)", `/api/reports/map.json?bbox=${streetBox}&zoom=18`, "p99 ≤ 50"),
    {
      name: "map, street level, uncached",
      next: () => ({ path: `/api/reports/map.json?bbox=${shifted(streetBox, moved++)}&zoom=18` }),
    },
    {
      name: "map, street level, after a change",
      next: () => ({ path: `/api/reports/map.json?bbox=${streetBox}&zoom=18` }),
      before: change,
      target: "p99 ≤ 50",
    },
    get("reports GeoJSON (1,000)", "/api/reports.geojson", "p99 ≤ 50"),
    // Every answer built from the database: each request a different page size (1,000 down to 601, in turn).
    {
      name: "reports GeoJSON (1,000), uncached",
      next: () => ({ path: `/api/reports.geojson?limit=${1000 - (moved++ % 400)}` }),
    },
    get("/reports.atom", "/reports.atom", "p99 ≤ 50"),
    get("/reports/{category}.atom", "/reports/streetlight.atom", "p99 ≤ 50"),
    get("/sitemap.xml (index)", "/sitemap.xml", "p99 ≤ 50"),
    get("/sitemap-2.xml (part)", "/sitemap-2.xml", "p99 ≤ 50"),
    {
      name: "open311 POST",
      next: () => ({
        path: "/api/v2/requests.json",
        init: {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
          body: new URLSearchParams({
            api_key: apiKey,
            service_code: "streetlight",
            lat: String(lat),
            long: String(lng),
            description: `Bench POST ${++posted}: the lamp is out.`,
            email: "bench@example.org",
            "attribute[fault]": "out",
          }).toString(),
        },
      }),
      target: ds.dialect === "sqlite" ? "≥ 800/s" : "≥ 400/s",
    },
  ];
}

/** Each scenario's queries, timed alone and explained. */
async function plans(ds: Dataset, list: Scenario[]): Promise<void> {
  let captured: CompiledQuery[] = [];
  let durations: number[] = [];
  const database = loggingDatabase(ds, (q, ms) => {
    captured.push(q);
    durations.push(ms);
  });
  const app = await buildApp(loadConfig(env(ds)), { database, logger: false });
  const raw = ds.url === null ? new SQLite(sqlitePath(ds.dataDir), { readonly: true }) : null;
  const client = ds.url ? new pg.Client({ connectionString: ds.url, options: PG_SESSION_OPTIONS }) : null;
  await client?.connect();
  for (const s of list) {
    if (s.name.includes("POST")) {
      // Writes are not run again: the time of each statement as the request ran it (median request of 21).
      const runs: { total: number; log: string[] }[] = [];
      for (let k = 0; k < 21; k++) {
        const { path, init } = s.next();
        captured = [];
        durations = [];
        const t0 = performance.now();
        await app.inject({
          method: "POST",
          url: path,
          headers: init?.headers as Record<string, string>,
          payload: String(init?.body),
        });
        const total = performance.now() - t0;
        runs.push({
          total,
          log: captured.map(
            (q, i) =>
              `    ${(durations[i] ?? 0).toFixed(2).padStart(7)} ms  ${q.sql.replace(/\s+/g, " ").slice(0, 150)}`,
          ),
        });
      }
      runs.sort((a, b) => a.total - b.total);
      const median = runs[10];
      console.log(`\n  ${s.name}: median ${median?.total.toFixed(1)} ms in process, ${median?.log.length} statements`);
      for (const line of median?.log ?? []) console.log(line);
      // This process's CPU time per request, one request at a time: steadier than req/s on a shared machine.
      const n = 300;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      for (let k = 0; k < n; k++) {
        const { path, init } = s.next();
        const headers = init?.headers as Record<string, string>;
        await app.inject({ method: "POST", url: path, headers, payload: String(init?.body) });
      }
      const used = process.cpuUsage(cpu);
      console.log(
        `  ${n} more, one at a time: ${((performance.now() - t0) / n).toFixed(2)} ms each, CPU ${((used.user + used.system) / n / 1000).toFixed(2)} ms each (user ${(used.user / n / 1000).toFixed(2)}, system ${(used.system / n / 1000).toFixed(2)})`,
      );
      // And four at a time, as the throughput clients send them (SQLite commits concurrent reports together).
      captured = [];
      const cpu4 = process.cpuUsage();
      const t4 = performance.now();
      for (let k = 0; k < n; k += 4) {
        await Promise.all(
          [0, 1, 2, 3].map(() => {
            const { path, init } = s.next();
            const headers = init?.headers as Record<string, string>;
            return app.inject({ method: "POST", url: path, headers, payload: String(init?.body) });
          }),
        );
      }
      const used4 = process.cpuUsage(cpu4);
      console.log(
        `  ${n} more, four at a time: ${((performance.now() - t4) / n).toFixed(2)} ms each, CPU ${((used4.user + used4.system) / n / 1000).toFixed(2)} ms each, ${(captured.length / n).toFixed(1)} statements and ${(captured.filter((q) => q.sql === "commit").length / n).toFixed(2)} COMMIT statements each`,
      );
      continue;
    }
    await app.inject(s.next().path); // warm (the sitemap builds here)
    // The next request: the same one, or for an "uncached" scenario another whose answer is built afresh.
    const { path } = s.next();
    await s.before?.();
    captured = [];
    const t0 = performance.now();
    const res = await app.inject(path);
    const once = performance.now() - t0;
    const logged = captured;
    captured = [];
    // 20 more, one at a time in process (no HTTP, no other client): steadier than the latency part on a busy machine.
    const times: number[] = [];
    for (let k = 0; k < 20; k++) {
      const next = s.next().path;
      await s.before?.();
      const t = performance.now();
      await app.inject(next);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    captured = logged;
    console.log(
      `\n  ${s.name}: ${res.statusCode} in ${once.toFixed(1)} ms in process, ${captured.length} queries; 20 more: median ${(times[10] ?? 0).toFixed(1)} ms, slowest ${(times[19] ?? 0).toFixed(1)} ms`,
    );
    for (const q of captured) {
      const params = q.parameters as unknown[];
      const times: number[] = [];
      for (let k = 0; k < 5 && (times[0] ?? 0) < 1000; k++) {
        const t = performance.now();
        if (raw) raw.prepare(q.sql).all(...(params as never[]));
        else await client?.query(q.sql, params);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      console.log(`    ${(times[2] ?? 0).toFixed(2).padStart(7)} ms  ${q.sql.replace(/\s+/g, " ").slice(0, 220)}`);
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(q.sql)) continue;
      if (raw) {
        const plan = raw.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(params as never[])) as { detail: string }[];
        for (const r of plan) console.log(`               ${r.detail}`);
      } else {
        const plan = await client?.query(`EXPLAIN (ANALYZE, COSTS OFF) ${q.sql}`, params);
        for (const r of (plan?.rows ?? []) as { "QUERY PLAN": string }[])
          console.log(`               ${r["QUERY PLAN"]}`);
      }
    }
  }
  raw?.close();
  await client?.end();
  await app.close();
}

async function benchDialect(dialect: Dialect, serverPath: string): Promise<void> {
  console.log(`\n[${dialect}] ${SIZE.toLocaleString("en-GB")} reports`);
  const ds = await openDataset(dialect, SIZE);
  let changer: ReturnType<typeof publicDataChanger> | null = null;
  try {
    if (opts["generate-only"]) return;
    const setup = openDatabase({ databaseUrl: ds.url, dataDir: ds.dataDir, poolSize: 1 });
    const apiKey = (await createApiKey(setup.db, "Bench", new Date())).key;
    // The counts table exists from migration 0019 on (not in an older tree being measured for comparison).
    if (ds.url) await sql`VACUUM ANALYZE report_counts`.execute(setup.db).catch(() => {});
    await setup.close();
    const c = publicDataChanger(ds);
    changer = c;
    const list = (await scenarios(ds, apiKey, c.change)).filter(
      (s) => PICK.length === 0 || PICK.some((p) => s.name.includes(p)),
    );
    if (PARTS.has("plans")) await plans(ds, list);
    const server = await startServer(serverPath, ds);
    try {
      if (PARTS.has("latency")) {
        console.log(
          `\n  one client, ${SECONDS} s each (load average ${loadavg()
            .map((l) => l.toFixed(2))
            .join(" ")})`,
        );
        for (const s of list) {
          await load([server.base], s, 0.5, 1); // warm-up (JIT, caches, the sitemap)
          record(dialect, "latency", s.name, await load([server.base], s, SECONDS, 1), s.target);
        }
      }
      if (PARTS.has("throughput")) {
        console.log(
          `\n  ${CLIENTS} clients, ${SECONDS} s each (load average ${loadavg()
            .map((l) => l.toFixed(2))
            .join(" ")})`,
        );
        for (const s of list.filter((x) => /open311 default|^\/reports$|report page|POST/.test(x.name))) {
          await load([server.base], s, WARMUP, CLIENTS); // warm-up
          const r = await load([server.base], s, SECONDS, CLIENTS, opts["per-second"]);
          record(dialect, `${CLIENTS} clients`, s.name, r, s.target);
        }
      }
    } finally {
      server.child.kill();
    }
    if (PARTS.has("two") && dialect === "postgres") {
      const [a, b] = await Promise.all([startServer(serverPath, ds), startServer(serverPath, ds)]);
      try {
        const reads = list.filter((s) => s.name.startsWith("open311") && !s.name.includes("POST"));
        const businesses = ["/api/v1/businesses", "/api/v1/businesses?q=bakery", "/api/v1/businesses?category=shops"];
        let k = 0;
        const mixed: Scenario = {
          name: "two instances: Open311 + business reads",
          next: () => {
            const n = k++;
            return n % 2
              ? (reads[n % reads.length] as Scenario).next()
              : { path: businesses[n % businesses.length] as string };
          },
          target: "no errors",
        };
        const bases = [a.base, b.base];
        await load(bases, mixed, 1, CLIENTS);
        console.log(`\n  two instances, ${CLIENTS} clients over both, ${SECONDS * 2} s`);
        record(dialect, "two", mixed.name, await load(bases, mixed, SECONDS * 2, CLIENTS), mixed.target);
      } finally {
        a.child.kill();
        b.child.kill();
      }
    }
  } finally {
    await changer?.close();
    await ds.close();
  }
}

export async function main(serverPath: string): Promise<void> {
  console.log(
    `Scale benchmark: ${SIZE.toLocaleString("en-GB")} reports, ${SECONDS} s per scenario, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const dialect of DIALECTS) await benchDialect(dialect, serverPath);
  console.log(
    `\n| db | part | scenario | p50 ms | p99 ms | req/s | requests | errors | target |\n|---|---|---|---|---|---|---|---|---|`,
  );
  for (const r of rows) console.log(r);
  console.log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}
