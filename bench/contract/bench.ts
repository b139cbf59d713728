/**
 * Long run of the contract test (test/contract/openapi-contract.test.ts): requests drawn from the served OpenAPI
 * description for every operation, valid ones and ones that break one constraint, on SQLite and PostgreSQL, for
 * any seed and as many cases as wanted, within a time limit. Prints the cases, the answers by status and every
 * distinct mismatch with its first example. Run with
 * `node bench/contract/run.mjs [--db sqlite|postgres|both] [--seed N] [--runs N] [--seconds N]` (see README.md).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { type Dialect, openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { benchPostgres } from "../postgres.js";
import {
  clientKnowledge,
  emptyReport,
  operations,
  runContract,
  servedDescription,
} from "../../test/contract/contract-model.js";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    runs: { type: "string", default: "500" },
    seconds: { type: "string", default: "300" },
  },
});
const SEED = Number(opts.seed);
const RUNS = Number(opts.runs);
const SECONDS = Number(opts.seconds);
const DIALECTS: Dialect[] = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db as Dialect];
/** Cases are drawn in chunks, each chunk of every operation from its own seed, so a time limit still covers all. */
const CHUNK = 50;

/**
 * Waits for a promise, but at most 20 s, and says so when it takes longer. A timer keeps the process alive
 * meanwhile: closing the SQLite app after a long run sometimes waits on nothing that keeps Node's event loop alive
 * (an unref'd timer, say), and the process then ended silently between the SQLite and PostgreSQL runs (exit code 13).
 */
async function settleWithin(promise: Promise<unknown>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.log(`  WARNING: ${what} took more than 20 s; going on`);
      resolve();
    }, 20_000);
  });
  await Promise.race([promise.then(() => undefined), timeout]);
  clearTimeout(timer);
}

async function runDialect(dialect: Dialect): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-contract-"));
  let stopPostgres: (() => Promise<void>) | null = null;
  let pgUrl: string | null = null;
  if (dialect === "postgres") {
    const cluster = await benchPostgres("contract");
    pgUrl = cluster.url;
    stopPostgres = cluster.stop;
  }
  const database = openDatabase({ databaseUrl: pgUrl, dataDir, poolSize: 10 });
  try {
    await migrateToLatest(database.db);
    await seedDemoVillage(database.db, new Date());
    const config = loadConfig({
      DATA_DIR: dataDir,
      BASE_URL: "http://contract.test",
      SESSION_SECRET: "contract-secret-contract-secret-012345",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      RATE_LIMIT_READ_MAX: "10000000",
      RATE_LIMIT_WRITE_MAX: "1000000",
      ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
    });
    const app = await buildApp(config, { database, logger: false });
    await app.ready();
    const doc = await servedDescription(app);
    const knowledge = await clientKnowledge(app);
    const report = emptyReport();
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    for (let done = 0, chunk = 0; done < RUNS && performance.now() < deadline; done += CHUNK, chunk++) {
      const runs = Math.min(CHUNK, RUNS - done);
      await runContract(app, doc, knowledge, { seed: SEED + chunk * 10_000, runs, deadline }, report);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `[${dialect}] seed ${SEED}: ${operations(doc).length} operations, ${report.cases} cases (valid and invalid) in ${seconds.toFixed(1)} s = ${(report.cases / seconds).toFixed(0)} cases/s; ${report.mismatches.size} distinct mismatches`,
    );
    console.log(
      `  answers by status: ${[...report.byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(" ")}`,
    );
    for (const [key, m] of report.mismatches) console.log(`  MISMATCH (${m.count}×) ${key}\n    e.g. ${m.example}`);
    await settleWithin(app.close(), "closing the app");
    return report.mismatches.size;
  } finally {
    await settleWithin(
      database.close().catch(() => {}),
      "closing the database",
    );
    if (stopPostgres) await stopPostgres();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let total = 0;
for (const dialect of DIALECTS) total += await runDialect(dialect);
if (total > 0) process.exitCode = 1;
