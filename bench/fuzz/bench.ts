/**
 * Long fuzz run: the model of test/hardening/fuzz.test.ts (OpenAPI operations, registered routes, the site's forms,
 * hostile values) for many more cases and any seed, on SQLite and PostgreSQL. Prints cases per second, the answers
 * by route and status, and every problem found (with the seed and the case's index, so it can be replayed).
 * Run with `node bench/fuzz/run.mjs [--db sqlite|postgres|both] [--seed N] [--runs N]` (see README.md).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { type Dialect, openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { createApiKey } from "../../src/open311/keys.js";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { benchPostgres } from "../postgres.js";
import {
  caseFor,
  checkCase,
  FORM_PAGES,
  formTargets,
  openApiTargets,
  registeredTargets,
  type Target,
} from "../../test/hardening/fuzz-model.js";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    runs: { type: "string", default: "20000" },
  },
});
const SEED = Number(opts.seed);
const RUNS = Number(opts.runs);
const DIALECTS: Dialect[] = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db as Dialect];

async function fuzzDialect(dialect: Dialect): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-fuzz-"));
  let stopPostgres: (() => Promise<void>) | null = null;
  let pgUrl: string | null = null;
  if (dialect === "postgres") {
    const cluster = await benchPostgres("fuzz");
    pgUrl = cluster.url;
    stopPostgres = cluster.stop;
  }
  const database = openDatabase({ databaseUrl: pgUrl, dataDir, poolSize: 10 });
  let offset = 0;
  try {
    await migrateToLatest(database.db);
    await seedDemoVillage(database.db, new Date());
    const config = loadConfig({
      DATA_DIR: dataDir,
      BASE_URL: "http://fuzz.test",
      SESSION_SECRET: "fuzz-secret-fuzz-secret-fuzz-secret-0123",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      RATE_LIMIT_READ_MAX: "10000000",
      RATE_LIMIT_WRITE_MAX: "1000000",
      ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
    });
    const app = await buildApp(config, { database, logger: false, now: () => new Date(Date.now() + offset) });
    await app.ready();
    const apiKey = (await createApiKey(database.db, "Fuzzer", new Date())).key;
    const targets = [...openApiTargets(app), ...registeredTargets(app), ...(await formTargets(app, FORM_PAGES))];
    const weighted = targets.flatMap((x) => (x.method === "POST" ? Array<Target>(10).fill(x) : [x]));
    const arbitrary = fc.constantFrom(...weighted).chain((t) => caseFor(t, { apiKey, origin: config.baseUrl }));

    const answers = new Map<string, number>();
    let failures = 0;
    let index = 0;
    const started = performance.now();
    // Cases are drawn in chunks of CHUNK from seeds SEED, SEED+1, …, and checked one by one (no shrinking), so a
    // run goes on after a problem and reports every kind it meets; case #i is case i % CHUNK of seed SEED + ⌊i/CHUNK⌋.
    const CHUNK = 500;
    for (let chunk = 0; index < RUNS; chunk++) {
      for (const c of fc.sample(arbitrary, { seed: SEED + chunk, numRuns: Math.min(CHUNK, RUNS - index) })) {
        const { status, problems, summary } = await checkCase(app, c, () => {
          offset += MIN_FILL_MS + 1000;
        });
        const key = `${c.method} ${c.target.path} ${status}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
        if (problems.length > 0) {
          failures++;
          if (failures <= 50) console.log(`  PROBLEM case #${index}: ${problems.join(", ")}\n    ${summary}`);
        }
        index++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `[${dialect}] seed ${SEED}: ${RUNS} cases in ${seconds.toFixed(1)} s = ${(RUNS / seconds).toFixed(0)} cases/s (each with a /healthz check), ${failures} with problems, ${targets.length} targets`,
    );
    const byStatus = new Map<number, number>();
    for (const [key, n] of answers) {
      const status = Number(key.split(" ").at(-1));
      byStatus.set(status, (byStatus.get(status) ?? 0) + n);
    }
    console.log(
      `  answers by status: ${[...byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    );
    await app.close();
    return failures;
  } finally {
    await database.close().catch(() => {});
    if (stopPostgres) await stopPostgres();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let total = 0;
for (const dialect of DIALECTS) total += await fuzzDialect(dialect);
if (total > 0) process.exitCode = 1;
