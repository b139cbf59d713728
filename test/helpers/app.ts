import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { describe, inject } from "vitest";
import { type AppOptions, buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { type Database, type Dialect, openDatabase, sqlitePath } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { testDialects } from "./dialects.js";

export { testDialects };

/** A fresh database of the given kind: SQLite in a temp dir, or a new database in the test cluster. */
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

/**
 * A fresh database with every migration applied, copied from this worker's template (see `templates`); with
 * `{ migrate: false }`, an empty one.
 */
export async function createTestDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-test-"));
  const migrate = options.migrate ?? true;
  let url: string | null = null;
  let dropDatabase = async () => {};
  if (dialect === "postgres") {
    const adminUrl = inject("postgresAdminUrl");
    if (!adminUrl) throw new Error("PostgreSQL is not running for this test run (TEST_DB excludes it)");
    const template = migrate ? await postgresTemplate(adminUrl) : null;
    const name = `test_${randomBytes(6).toString("hex")}`;
    await adminQuery(adminUrl, `create database ${name}${template ? ` template ${template} strategy file_copy` : ""}`);
    url = databaseUrl(adminUrl, name);
    dropDatabase = () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`);
  } else if (migrate) {
    const template = await sqliteTemplate();
    for (const suffix of ["", "-wal"]) {
      if (existsSync(`${template}${suffix}`)) copyFileSync(`${template}${suffix}`, `${sqlitePath(dataDir)}${suffix}`);
    }
  }
  const open = () => openDatabase({ databaseUrl: url, dataDir, poolSize: 5 });
  const database = open();
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

/**
 * Migrated databases to copy, made once per worker process and dialect: running every migration for each of the
 * suite's databases cost more than most of the tests on them. A test database from a template is the same as one
 * migrated in place (an empty database plus the migrations' own rows); `{ migrate: false }` still gives an empty one.
 */
const templates = new Map<Dialect, Promise<string>>();

/** The path of a migrated SQLite file, closed (so no connection writes to it while it is copied). */
function sqliteTemplate(): Promise<string> {
  let template = templates.get("sqlite");
  if (!template) {
    template = (async () => {
      // In the run's directory (test/setup/run-dir.ts), removed at the end of the run.
      const dir = mkdtempSync(join(inject("testRunDir"), "template-"));
      const database = openDatabase({ databaseUrl: null, dataDir: dir });
      try {
        await migrateToLatest(database.db);
      } finally {
        // The last connection to close checkpoints the WAL into the file; a WAL left over is copied with it.
        await database.close();
      }
      return sqlitePath(dir);
    })();
    templates.set("sqlite", template);
  }
  return template;
}

/**
 * The name of a migrated PostgreSQL database to copy with CREATE DATABASE … TEMPLATE, which needs it to have no
 * connections: its pool is closed once it is migrated, and only this worker process copies it.
 */
function postgresTemplate(adminUrl: string): Promise<string> {
  let template = templates.get("postgres");
  if (!template) {
    template = (async () => {
      const name = `template_${process.pid}_${randomBytes(4).toString("hex")}`;
      await adminQuery(adminUrl, `create database ${name}`);
      const database = openDatabase({ databaseUrl: databaseUrl(adminUrl, name), dataDir: tmpdir(), poolSize: 1 });
      try {
        await migrateToLatest(database.db);
      } finally {
        await database.close();
      }
      return name;
    })();
    templates.set("postgres", template);
  }
  return template;
}

async function adminQuery(adminUrl: string, query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(query);
  } finally {
    await admin.end();
  }
}

const databaseUrl = (adminUrl: string, name: string) => adminUrl.replace(/\/postgres$/, `/${name}`);

/** A valid configuration for tests, from an environment like the one a user would set. */
export function testConfig(dataDir: string, env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    BASE_URL: "http://civic.test",
    SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
    // A closed port on loopback: no test ever fetches map tiles from a public tile server (the proxy, src/maps).
    MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png",
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
  // Migrated from the template: buildApp's own migration run then finds nothing to do.
  const db = await createTestDatabase(dialect);
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
