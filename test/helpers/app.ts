import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { describe, inject } from "vitest";
import { type AppOptions, buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { type Database, type Dialect, openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { testDialects } from "./dialects.js";

export { testDialects };

/** A fresh, empty database of the given kind: SQLite in a temp dir, or a new database in the test cluster. */
export interface TestDatabase {
  dialect: Dialect;
  database: Database;
  /** postgres:// URL of this database, or null for SQLite. */
  url: string | null;
  dataDir: string;
  /** Opens another connection to the same database (a second instance, a restarted process). */
  reopen(): Database;
  cleanup(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-test-"));
  let url: string | null = null;
  let dropDatabase = async () => {};
  if (dialect === "postgres") {
    const adminUrl = inject("postgresAdminUrl");
    if (!adminUrl) throw new Error("PostgreSQL is not running for this test run (TEST_DB excludes it)");
    const name = `test_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    url = adminUrl.replace(/\/postgres$/, `/${name}`);
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const open = () => openDatabase({ databaseUrl: url, dataDir, poolSize: 5 });
  const database = open();
  if (options.migrate ?? true) await migrateToLatest(database.db);
  return {
    dialect,
    database,
    url,
    dataDir,
    reopen: open,
    async cleanup() {
      await database.close().catch(() => {});
      await dropDatabase().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A valid configuration for tests, from an environment like the one a user would set. */
export function testConfig(dataDir: string, env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    BASE_URL: "http://civic.test",
    SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  db: TestDatabase;
  close(): Promise<void>;
}

/** Builds the whole app on a fresh database of the given kind. */
export async function createTestApp(
  dialect: Dialect,
  options: {
    env?: Record<string, string | undefined>;
    seed?: boolean;
    /** Extra routes a test needs (registered before the app is ready). */
    routes?: (app: FastifyInstance) => void;
  } & Omit<AppOptions, "database"> = {},
): Promise<TestApp> {
  const db = await createTestDatabase(dialect, { migrate: false });
  const config = testConfig(db.dataDir, {
    SEED_DEMO: options.seed ? "true" : "false",
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...options.env,
  });
  const { env: _env, seed: _seed, routes, ...appOptions } = options;
  const app = await buildApp(config, { logger: false, ...appOptions, database: db.database });
  routes?.(app);
  await app.ready();
  return {
    app,
    config,
    db,
    async close() {
      await app.close();
      await db.cleanup();
    },
  };
}

/** Runs a suite once per database kind under test (TEST_DB). */
export function describeEachDb(name: string, body: (dialect: Dialect) => void): void {
  for (const dialect of testDialects()) {
    describe(`${name} [${dialect}]`, () => body(dialect));
  }
}

/** Fetches a page and returns a valid form token from it, as a browser would get one. */
export async function formToken(app: FastifyInstance, path: string): Promise<string> {
  const res = await app.inject({ method: "GET", url: path });
  const match = /name="_csrf" value="([^"]+)"/.exec(res.body);
  if (!match?.[1]) throw new Error(`no form token on ${path} (status ${res.statusCode})`);
  return match[1];
}
