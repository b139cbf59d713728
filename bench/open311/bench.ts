/**
 * Open311 benchmark: GET /api/v2/requests.json against 100,000 and 1,000,000 stored reports (default query,
 * service_code + status, near here) and POST throughput, on SQLite and PostgreSQL, over real HTTP. Prints the
 * query plans of the three GET queries. Run with `node bench/open311/run.mjs` (see README.md).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { type Dialect, openDatabase } from "../../src/core/db/database.js";
import type { DB } from "../../src/core/db/schema.js";
import { village } from "../../src/demo/village.js";
import { createApiKey } from "../../src/open311/keys.js";
import { parseRequestsQuery } from "../../src/open311/query.js";
import { requestsQuery } from "../../src/open311/requests.js";
import { openDataset } from "../scale/dataset.js";

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
  for (const size of SIZES) {
    console.log(`\n[${dialect}] ${size.toLocaleString("en-GB")} stored reports`);
    // The cached dataset of bench/scale (generated in SQL once, copied for each run).
    const ds = await openDataset(dialect, size);
    const database = openDatabase({ databaseUrl: ds.url, dataDir: ds.dataDir, poolSize: 10 });
    const db = database.db;
    try {
      const config = loadConfig({
        DATA_DIR: ds.dataDir,
        BASE_URL: "http://bench.test",
        SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
        LOG_LEVEL: "silent",
        SEED_DEMO: "false",
        RATE_LIMIT_READ_MAX: "10000000",
        RATE_LIMIT_WRITE_MAX: "1000000",
        ...(ds.url ? { DATABASE_URL: ds.url } : {}),
      });
      const app = await buildApp(config, { database, logger: false });
      const address = await app.listen({ port: 0, host: "127.0.0.1" });
      const key = (await createApiKey(db, "Bench", NOW)).key;
      await printPlans(db, dialect, join(ds.dataDir, "civic.db"), ds.url);
      console.log("");
      for (const s of SCENARIOS) {
        const url = `${address}/api/v2/requests.json?${new URLSearchParams(s.query).toString()}`;
        const first = (await (await fetch(url)).json()) as unknown[];
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
      await app.close();
    } finally {
      await database.close().catch(() => {});
      await ds.close();
    }
  }
}

console.log(
  `Open311 benchmark: ${SECONDS} s per scenario, ${CONCURRENCY} concurrent clients (POST: ${Math.min(CONCURRENCY, 4)}), Node ${process.version}`,
);
for (const dialect of DIALECTS) await benchDialect(dialect);
