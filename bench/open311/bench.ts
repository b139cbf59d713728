/**
 * Open311 benchmark: GET /api/v2/requests.json against 100,000 and 1,000,000 stored reports (default query,
 * service_code + status, near here) and POST throughput, on SQLite and PostgreSQL, over real HTTP. Prints the
 * query plans of the three GET queries. Run with `node bench/open311/run.mjs` (see README.md).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { type Dialect, openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import type { DB } from "../../src/core/db/schema.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { categories, village } from "../../src/demo/village.js";
import { createApiKey } from "../../src/open311/keys.js";
import { parseRequestsQuery } from "../../src/open311/query.js";
import { requestsQuery } from "../../src/open311/requests.js";
import { REPORT_STATUSES } from "../../src/reports/model.js";
import startPostgres from "../../test/setup/postgres.js";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    sizes: { type: "string", default: "100000,1000000" },
    seconds: { type: "string", default: "8" },
    concurrency: { type: "string", default: "8" },
  },
});
const SECONDS = Number(opts.seconds);
const CONCURRENCY = Number(opts.concurrency);
const SIZES = (opts.sizes ?? "").split(",").map(Number);
const DIALECTS: Dialect[] = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db as Dialect];

const NOW = new Date();
const NOW_S = Math.floor(NOW.getTime() / 1000);
const SPREAD_S = 3 * 365 * 86_400; // reports spread over three years: ~8% fall in the default 90-day window
const CODES = categories.map((c) => c.code);
const { south, west, north, east } = village.bounds;

/** SQL CASE picking from a list by an integer expression (deterministic data on both databases). */
function pick(list: readonly string[], expr: string): string {
  return `CASE (${expr}) % ${list.length} ${list.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`;
}

/** Inserts reports numbered from+1 … to, and one public update per report, entirely in SQL. */
async function generate(db: Kysely<DB>, dialect: Dialect, from: number, to: number): Promise<void> {
  const started = performance.now();
  const code = pick(CODES, "i");
  const status = pick(REPORT_STATUSES, "i * 31");
  const lat = `${south} + ((i * 7919) % 10007) / 10007.0 * ${north - south}`;
  const lng = `${west} + ((i * 104729) % 10009) / 10009.0 * ${east - west}`;
  const visibility = `CASE WHEN i % 50 = 0 THEN 'hidden' ELSE 'public' END`;
  const columns =
    "reference, category_code, title, description, latitude, longitude, attributes, status, visibility, share_contact, source, created_at, updated_at";
  if (dialect === "sqlite") {
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${NOW_S} - ((i * 2654435761) % ${SPREAD_S}), 'unixepoch')`;
    await sql
      .raw(
        `WITH RECURSIVE s(i) AS (SELECT ${from + 1} UNION ALL SELECT i + 1 FROM s WHERE i < ${to})
         INSERT INTO reports (${columns})
         SELECT printf('BNCH-%07d', i), ${code}, 'Bench report ' || i, 'Generated report number ' || i || '.',
                ${lat}, ${lng}, '{}', ${status}, ${visibility}, 0, 'web', ${at}, ${at} FROM s`,
      )
      .execute(db);
  } else {
    const at = `to_timestamp(${NOW_S} - ((i::bigint * 2654435761) % ${SPREAD_S}))`;
    await sql
      .raw(
        `INSERT INTO reports (${columns})
         SELECT 'BNCH-' || lpad(i::text, 7, '0'), ${code}, 'Bench report ' || i, 'Generated report number ' || i || '.',
                ${lat}, ${lng}, '{}', ${status}, ${visibility}, 0, 'web', ${at}, ${at}
         FROM generate_series(${from + 1}::bigint, ${to}::bigint) AS i`,
      )
      .execute(db);
  }
  await sql
    .raw(
      `INSERT INTO report_updates (report_id, status, previous_status, note, created_at)
       SELECT id, status, NULL, CASE WHEN status = 'open' THEN '' ELSE 'Bench note for ' || reference END, updated_at
       FROM reports WHERE reference > 'BNCH-${String(from).padStart(7, "0")}' AND reference LIKE 'BNCH-%'`,
    )
    .execute(db);
  await sql.raw(dialect === "sqlite" ? "ANALYZE" : "ANALYZE reports; ANALYZE report_updates").execute(db);
  console.log(`  generated reports ${from + 1}…${to} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

interface Scenario {
  name: string;
  query: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { name: "default (last 90 days)", query: {} },
  { name: "service_code + status", query: { service_code: "streetlight", status: "open" } },
  {
    name: "near here (300 m)",
    query: { lat: String(village.centre.lat), long: String(village.centre.lng), radius: "300" },
  },
];

async function printPlans(db: Kysely<DB>, dialect: Dialect, file: string, pgUrl: string | null): Promise<void> {
  for (const s of SCENARIOS) {
    const q = s.query;
    const filter = parseRequestsQuery(
      {
        ...q,
        ...(q.lat ? { lat: Number(q.lat), long: Number(q.long), radius: Number(q.radius) } : {}),
      },
      NOW,
    );
    const compiled = requestsQuery(db, filter).compile();
    const times: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      await requestsQuery(db, filter).execute();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`\n  plan: ${s.name} (query alone: median ${times[2]?.toFixed(1)} ms of 5)`);
    if (dialect === "sqlite") {
      const raw = new SQLite(file, { readonly: true });
      const rows = raw.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as {
        detail: string;
      }[];
      for (const r of rows) console.log(`    ${r.detail}`);
      raw.close();
    } else {
      const client = new pg.Client({ connectionString: pgUrl ?? "", options: "-c TimeZone=UTC" });
      await client.connect();
      const res = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${compiled.sql}`, compiled.parameters as unknown[]);
      for (const r of res.rows as { "QUERY PLAN": string }[]) console.log(`    ${r["QUERY PLAN"]}`);
      await client.end();
    }
  }
}

interface Result {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  rps: number;
}

/** Runs `concurrency` loops of requests for `seconds`; latencies in milliseconds. */
async function load(request: () => Promise<Response>, seconds: number, concurrency: number): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const res = await request();
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (res.status !== 200) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { count: latencies.length, errors, p50: at(0.5), p99: at(0.99), rps: latencies.length / elapsed };
}

function report(label: string, r: Result, extra = ""): void {
  console.log(
    `  ${label.padEnd(28)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  ${r.rps
      .toFixed(0)
      .padStart(6)} req/s  (${r.count} requests, ${r.errors} errors)${extra}`,
  );
}

async function benchDialect(dialect: Dialect): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-bench-"));
  let stopPostgres: (() => Promise<void>) | null = null;
  let pgUrl: string | null = null;
  if (dialect === "postgres") {
    process.env.TEST_DB = "postgres";
    let admin = "";
    stopPostgres = await startPostgres({
      provide: (_k: string, v: string) => {
        admin = v;
      },
    } as unknown as TestProject);
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query("create database bench");
    await c.end();
    pgUrl = admin.replace(/\/postgres$/, "/bench");
  }
  const database = openDatabase({ databaseUrl: pgUrl, dataDir, poolSize: 10 });
  const db = database.db;
  try {
    await migrateToLatest(db);
    await seedDemoVillage(db, NOW);
    const config = loadConfig({
      DATA_DIR: dataDir,
      BASE_URL: "http://bench.test",
      SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      RATE_LIMIT_READ_MAX: "10000000",
      RATE_LIMIT_WRITE_MAX: "1000000",
      ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
    });
    const app = await buildApp(config, { database, logger: false });
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    const key = (await createApiKey(db, "Bench", NOW)).key;

    let stored = 0;
    for (const size of SIZES) {
      console.log(`\n[${dialect}] ${size.toLocaleString("en-GB")} stored reports`);
      await generate(db, dialect, stored, size);
      stored = size;
      await printPlans(db, dialect, join(dataDir, "civic.db"), pgUrl);
      console.log("");
      for (const s of SCENARIOS) {
        const url = `${address}/api/v2/requests.json?${new URLSearchParams(s.query).toString()}`;
        // A keep-alive connection may have been closed while the data was generated: warm up with a retry.
        const first = (await (await fetch(url).catch(() => fetch(url))).json()) as unknown[];
        const r = await load(() => fetch(url), SECONDS, CONCURRENCY);
        report(`GET ${s.name}`, r, `, ${first.length} per response`);
      }
      let n = 0;
      const post = await load(
        () =>
          fetch(`${address}/api/v2/requests.json`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
            body: new URLSearchParams({
              api_key: key,
              service_code: "streetlight",
              lat: String(village.centre.lat),
              long: String(village.centre.lng),
              description: `Bench POST ${++n}: the lamp is out.`,
              email: "bench@example.org",
              "attribute[fault]": "out",
            }).toString(),
          }),
        SECONDS,
        Math.min(CONCURRENCY, 4),
      );
      report("POST requests.json", post);
    }
    await app.close();
  } finally {
    await database.close().catch(() => {});
    if (stopPostgres) await stopPostgres();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `Open311 benchmark: ${SECONDS} s per scenario, ${CONCURRENCY} concurrent clients (POST: ${Math.min(CONCURRENCY, 4)}), Node ${process.version}`,
);
for (const dialect of DIALECTS) await benchDialect(dialect);
