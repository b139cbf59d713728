import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import {
  Kysely,
  type LogEvent,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteStatement,
  sql,
} from "kysely";
import pg from "pg";
import { BACKSTOP_CHECKPOINT_PAGES, Checkpointer } from "./checkpointer.js";
import { preparingPool } from "./prepared.js";
import { SyncThread } from "./sync-thread.js";
import type { DB } from "./schema.js";
import { type SyncFile, WalSync } from "./wal-sync.js";

export type Dialect = "sqlite" | "postgres";

/** An open database: the typed Kysely instance plus what the app needs to know about it. */
export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Answers when the database responds to a trivial query. */
  ping(): Promise<boolean>;
  /**
   * Resolves once every write this process committed before the call is on disk; answers to write requests wait
   * for it (core/http/durable-answers.ts). SQLite files: see WalSync. PostgreSQL: at once, its COMMIT already
   * waited for the WAL flush; an in-memory SQLite has no disk.
   */
  durable(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Overrides `$dataDir/civic.db`, e.g. ":memory:". */
  sqliteFile?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** How SQLite's WAL is synced to disk (tests slow it down or make it fail); fdatasync by default. */
  syncWal?: SyncFile;
  /** Called with every query and its duration (the scale benchmark's plans). */
  log?: (event: LogEvent) => void;
}

let pgParsersInstalled = false;

/** PostgreSQL's text form of a timestamptz in a UTC session: 2026-11-24 06:08:25.835123+00. */
const PG_UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as the ISO 8601 UTC string SQLite stores (milliseconds, truncated as Date does). The usual UTC form
 * is rewritten as text, several times faster than parsing a Date (a page of 1,000 Open311 requests has ~3,000);
 * anything else (another zone, a year past 9999, BC) goes through Date.
 */
export function pgTimestamptzToIso(v: string): string {
  const m = PG_UTC_TIMESTAMP.exec(v);
  if (!m) return new Date(v).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? "").padEnd(3, "0").slice(0, 3)}Z`;
}

function installPgTypeParsers(): void {
  if (pgParsersInstalled) return;
  pgParsersInstalled = true;
  // int8 (count(*), bigserial): numbers are safe for our sizes.
  pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
  // numeric: used by some aggregates.
  pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
  // timestamptz and timestamp: the same ISO 8601 UTC strings SQLite stores.
  pg.types.setTypeParser(1184, pgTimestamptzToIso);
  pg.types.setTypeParser(1114, (v) => new Date(`${v.replace(" ", "T")}Z`).toISOString());
}

/**
 * Every PostgreSQL session works in UTC, so timestamps compare and print the same on both dialects, and without
 * parallel workers: the platform's reads are short, and starting a worker cost a search for a rare word 7 to 15 ms of
 * its 15 at a million reports (bench/scale/README.md), more than any of its reads could gain.
 */
export const PG_SESSION_OPTIONS = "-c TimeZone=UTC -c max_parallel_workers_per_gather=0";

/** Opens SQLite under DATA_DIR, or PostgreSQL when a DATABASE_URL is given. */
export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl) {
    installPgTypeParsers();
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      options: PG_SESSION_OPTIONS,
    });
    // A broken idle connection must not crash the process; the next query gets a fresh one.
    pool.on("error", () => {});
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }), log: options.log });
    return {
      db,
      dialect: "postgres",
      ping: () => ping(db),
      durable: () => Promise.resolve(),
      close: () => db.destroy(),
    };
  }
  const file = options.sqliteFile ?? sqlitePath(options.dataDir);
  if (file !== ":memory:") mkdirSync(options.dataDir, { recursive: true });
  const { connection, walSync, checkpointer, syncThread } = openSqlite(file, options.syncWal);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }), log: options.log });
  return {
    db,
    dialect: "sqlite",
    // A process that can no longer make its writes durable is not healthy: the health checks take it out of service.
    ping: async () => !walSync?.failed && (await ping(db)),
    durable: () => (walSync ? walSync.durable() : Promise.resolve()),
    close: async () => {
      // The checkpointing thread's connection first, so the app's is the last: closing it checkpoints the WAL.
      await checkpointer?.close().catch(() => {});
      await db.destroy();
      await syncThread?.close();
    },
  };
}

/** The app's SQLite connection: its settings, kept statements and commit tracking, and the WAL's sync (files only). */
function openSqlite(
  file: string,
  syncWal?: SyncFile,
): {
  connection: SqliteDatabase;
  walSync: WalSync | null;
  checkpointer: Checkpointer | null;
  syncThread: SyncThread | null;
} {
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // Deleted content is overwritten with zeros, so erased personal data does not stay in freed space of the file
  // (core/db/erasure.ts; issue 27, #15). Every connection to the file sets it, the checkpointer's too.
  sqlite.pragma("secure_delete = ON");
  // Statement journals in memory: a write to a table with triggers (reports, report_updates: counts, data
  // versions) opens one, and with ten indexes it outgrew SQLite's 64 KiB in-memory limit, so every report's insert
  // created and wrote a temporary file (0.09 instead of 0.03 ms per insert at a million reports). Temporary tables
  // and sorts stay in memory too; the app's lists are read in index order, so its sorts are small.
  sqlite.pragma("temp_store = MEMORY");
  // NORMAL: a commit writes the WAL without syncing it; SQLite syncs the WAL before each checkpoint and the database
  // file after it, so a power loss leaves a consistent database that may lack the newest commits. Those are covered
  // by WalSync: an fdatasync of the WAL on a thread of its own (core/db/sync-thread.ts), off the event loop, that
  // every answer to a write request waits for (core/http/durable-answers.ts). So no acknowledged write can be lost, as with FULL, whose fsync per
  // COMMIT blocked the event loop for 20-35 % of its time under a load of reports.
  sqlite.pragma("synchronous = NORMAL");
  // Checkpoints run on a thread of their own (core/db/checkpointer.ts); this connection only as a backstop.
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  const syncThread = file === ":memory:" || syncWal ? null : new SyncThread();
  const walSync = file === ":memory:" ? null : new WalSync(`${file}-wal`, { sync: syncWal ?? syncThread?.sync });
  const checkpointer = file === ":memory:" ? null : new Checkpointer(file);
  const connection = withStatementCache(sqlite, () => {
    walSync?.noteCommit();
    checkpointer?.noteCommit();
  });
  return { connection, walSync, checkpointer, syncThread };
}

/** Prepared statements kept per connection, at most (the app has a few hundred distinct queries). */
const STATEMENT_CACHE_SIZE = 500;

interface Kept {
  statement: SQLite.Statement;
  tracked: SqliteStatement;
}

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text: Kysely prepares every query it
 * runs, and compiling the SQL cost more than running it for most of a report's writes (~0.9 ms of a 4 ms POST).
 * A statement still being iterated (a streamed query) is busy; the same SQL then gets a fresh, uncached one.
 * SQLite re-prepares a kept statement by itself when the schema changes.
 *
 * `onCommit` is called after each commit that may have written something: once a statement that is not read-only
 * has run, the connection is dirty, and the first statement to finish outside a transaction while it is dirty ended
 * a write (an autocommit statement, a COMMIT, the release of the outermost savepoint). A ROLLBACK or a failed write
 * counts too: one sync too many costs less than a missed one.
 */
export function withStatementCache(sqlite: SQLite.Database, onCommit: () => void = () => {}): SqliteDatabase {
  const cache = new Map<string, Kept>();
  let dirty = false;
  const finished = () => {
    if (dirty && !sqlite.inTransaction) {
      dirty = false;
      onCommit();
    }
  };
  const track = (statement: SQLite.Statement): Kept => {
    const writes = !statement.readonly;
    const running = <T>(run: () => T): T => {
      if (writes) dirty = true;
      try {
        return run();
      } finally {
        finished();
      }
    };
    return {
      statement,
      tracked: {
        reader: statement.reader,
        all: (parameters) => running(() => statement.all(parameters)),
        run: (parameters) => running(() => statement.run(parameters)),
        // Kysely streams SELECTs only, which write nothing; the next statement to finish notices a commit anyway.
        iterate: (parameters) => {
          if (writes) dirty = true;
          return statement.iterate(parameters);
        },
      },
    };
  };
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const kept = cache.get(text);
      if (kept && !kept.statement.busy) {
        // Most recently used last, so the oldest is dropped first.
        cache.delete(text);
        cache.set(text, kept);
        return kept.tracked;
      }
      const fresh = track(sqlite.prepare(text));
      if (kept) return fresh.tracked;
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(text, fresh);
      return fresh.tracked;
    },
  };
}

/** The SQLite database file under DATA_DIR. */
export function sqlitePath(dataDir: string): string {
  return join(dataDir, "civic.db");
}

async function ping(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
