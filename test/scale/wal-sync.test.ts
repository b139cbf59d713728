import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { type Database, openDatabase, sqlitePath } from "../../src/core/db/database.js";
import { fdatasyncFile, type SyncFile } from "../../src/core/db/wal-sync.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestDatabase, describeEachDb, testConfig, testDialects } from "../helpers/app.js";
import { form } from "../open311/support.js";
import { turns, until } from "../helpers/wait.js";

/**
 * SQLite runs with synchronous=NORMAL; answers to write requests wait for an fdatasync of the WAL made off the event
 * loop (core/db/wal-sync.ts, core/db/sync-thread.ts, core/http/durable-answers.ts). These tests use real SQLite files; only the sync
 * function is replaced, by one that counts, waits on a gate the test opens, or fails, and otherwise does the real
 * fdatasync.
 */

/** The sync the database gets: counts its calls and does what the test currently wants. */
class SyncProbe {
  calls = 0;
  private behaviour: SyncFile = fdatasyncFile;
  private opening: () => void = () => {};
  readonly sync: SyncFile = (path) => {
    this.calls++;
    return this.behaviour(path);
  };

  /** The next syncs wait until `release()`; `reached` resolves when the first of them has started. */
  hold(): { reached: Promise<void>; release: () => void } {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered: () => void = () => {};
    const reached = new Promise<void>((resolve) => (entered = resolve));
    this.behaviour = async (path) => {
      entered();
      await gate;
      await fdatasyncFile(path);
    };
    this.opening = () => {
      this.behaviour = fdatasyncFile;
      open();
    };
    return { reached, release: () => this.release() };
  }

  /** Lets every held sync go on (also after a failed test, so that no answer stays pending). */
  release(): void {
    this.opening();
  }

  /** Every sync from now on fails as a disk error would. */
  failWith(code: string): void {
    this.behaviour = async () => {
      throw Object.assign(new Error(`${code}: i/o error, fdatasync`), { code });
    };
  }
}

/** Tracks whether a promise has settled, without waiting for it. */
function watch<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  return { settled: () => done, promise: watched };
}

/** Stores a banned sender pattern: a small write of its own. */
const ban = (db: Database["db"], pattern: string) =>
  db
    .insertInto("banned_senders")
    .values({ pattern, reason: "test", created_by: null, created_at: "2026-11-24T08:00:00.000Z" })
    .execute();

interface DurableApp {
  app: FastifyInstance;
  database: Database;
  probe: SyncProbe;
  key: string;
  dir: string;
  close(): Promise<void>;
}

/** The whole app on a SQLite file whose WAL syncs go through a probe, plus a plain HTML form route that redirects. */
async function durableApp(): Promise<DurableApp> {
  const dir = mkdtempSync(join(tmpdir(), "civic-walsync-"));
  const probe = new SyncProbe();
  const database = openDatabase({ databaseUrl: null, dataDir: dir, syncWal: probe.sync });
  const app = await buildApp(testConfig(dir, { SEED_DEMO: "true", RATE_LIMIT_WRITE_MAX: "1000" }), {
    logger: false,
    database,
  });
  app.post("/test/ban", { config: { csrf: false } }, async (request, reply) => {
    const pattern = (request.body as { pattern: string }).pattern;
    await ban(database.db, pattern);
    return reply.redirect("/test/banned", 303);
  });
  await app.ready();
  const { key } = await createApiKey(database.db, "Test client", new Date());
  return {
    app,
    database,
    probe,
    key,
    dir,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function open311Post(t: DurableApp, description: string, headers: Record<string, string> = {}) {
  const request = form([
    ["api_key", t.key],
    ["service_code", "streetlight"],
    ["lat", "50.9862"],
    ["long", "-2.0437"],
    ["description", description],
    ["attribute[fault]", "flickering"],
  ]);
  return t.app.inject({
    method: "POST",
    url: "/api/v2/requests.json",
    payload: request.payload,
    headers: { ...request.headers, ...headers },
  });
}

const storedReports = async (database: Database, description: string) =>
  (await database.db.selectFrom("reports").select("id").where("description", "=", description).execute()).length;

const sqliteOnly = testDialects().includes("sqlite") ? describe : describe.skip;

sqliteOnly("SQLite writes are answered once on disk, without fsync on the event loop", () => {
  let t: DurableApp;
  beforeAll(async () => {
    t = await durableApp();
  });
  afterEach(() => t?.probe.release());
  afterAll(async () => t?.close());

  it("opens the database in WAL mode with synchronous=NORMAL", async () => {
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(t.database.db);
    expect(mode.rows[0]?.journal_mode).toBe("wal");
    const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(t.database.db);
    expect(sync.rows[0]?.synchronous).toBe(1);
  });

  it("sends an Open311 POST's answer only after the sync that covers its report has completed", async () => {
    const gate = t.probe.hold();
    const post = watch(open311Post(t, "Lamp out by the chapel, answered after the sync."));
    await gate.reached;
    // The report is committed when the sync starts, and its answer waits for the sync to finish.
    expect(await storedReports(t.database, "Lamp out by the chapel, answered after the sync.")).toBe(1);
    // The event loop goes round enough times to send an answer nothing holds back: this one is still held.
    await turns();
    expect(post.settled()).toBe(false);
    gate.release();
    const res = await post.promise;
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { service_request_id: string }[])[0]?.service_request_id).toMatch(/\S/);
  });

  it("syncs after the route's own last writes: the idempotency key's stored answer is covered too", async () => {
    const gate = t.probe.hold();
    const post = watch(open311Post(t, "Lamp out by the school.", { "idempotency-key": "walsync-test-key-0001" }));
    await gate.reached;
    const row = await t.database.db
      .selectFrom("idempotency_keys")
      .select(["state", "status"])
      .where("key", "=", "walsync-test-key-0001")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: "done", status: 200 });
    expect(post.settled()).toBe(false);
    gate.release();
    expect((await post.promise).statusCode).toBe(200);
  });

  it("holds the 303 after a form until the sync is done", async () => {
    const gate = t.probe.hold();
    const post = watch(t.app.inject({ method: "POST", url: "/test/ban", payload: { pattern: "form.example" } }));
    await gate.reached;
    await turns();
    expect(post.settled()).toBe(false);
    gate.release();
    const res = await post.promise;
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/test/banned");
  });

  it("shares syncs: eight concurrent reports need at most two", async () => {
    const before = t.probe.calls;
    const gate = t.probe.hold();
    const descriptions = Array.from({ length: 8 }, (_, i) => `Concurrent report number ${i + 1} about a lamp.`);
    const posts = descriptions.map((d) => watch(open311Post(t, d)));
    await gate.reached;
    // Every report is committed while the first sync is still in flight.
    await until(async () =>
      (await Promise.all(descriptions.map((d) => storedReports(t.database, d)))).every((n) => n === 1),
    );
    expect(posts.some((p) => p.settled())).toBe(false);
    gate.release();
    const answers = await Promise.all(posts.map((p) => p.promise));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(t.probe.calls - before).toBeGreaterThanOrEqual(1);
    expect(t.probe.calls - before).toBeLessThanOrEqual(2);
  });

  it("shares syncs between direct writes too: callers arriving during a sync wait for one following sync", async () => {
    const before = t.probe.calls;
    const gate = t.probe.hold();
    const writes = Array.from({ length: 8 }, (_, i) =>
      watch(
        (async () => {
          await ban(t.database.db, `share${i}.example`);
          await t.database.durable();
        })(),
      ),
    );
    await gate.reached;
    await turns();
    expect(writes.some((w) => w.settled())).toBe(false);
    gate.release();
    await Promise.all(writes.map((w) => w.promise));
    expect(t.probe.calls - before).toBe(2);
  });

  it("answers a GET while a sync is pending", async () => {
    const gate = t.probe.hold();
    const post = watch(open311Post(t, "Lamp out by the green, while someone reads."));
    await gate.reached;
    const read = await t.app.inject({ method: "GET", url: "/api/v2/requests.json" });
    expect(read.statusCode).toBe(200);
    expect(post.settled()).toBe(false);
    gate.release();
    expect((await post.promise).statusCode).toBe(200);
  });

  it("sends an error answer to a write request at once: it promises nothing was stored", async () => {
    const gate = t.probe.hold();
    const post = watch(open311Post(t, "Lamp out by the bridge, while a bad request comes in."));
    await gate.reached;
    const refused = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      payload: form([["api_key", "wrong"]]).payload,
      headers: form([["api_key", "wrong"]]).headers,
    });
    expect(refused.statusCode).toBe(403);
    expect(post.settled()).toBe(false);
    gate.release();
    expect((await post.promise).statusCode).toBe(200);
  });

  it("does no sync when nothing was committed since the last one: reads, a read-only transaction, a durable() again", async () => {
    await t.database.durable();
    const before = t.probe.calls;
    await t.database.durable();
    expect((await t.app.inject({ method: "GET", url: "/api/v2/requests.json" })).statusCode).toBe(200);
    await t.database.db.transaction().execute((tx) => tx.selectFrom("reports").select("id").limit(1).execute());
    await t.database.durable();
    expect(t.probe.calls).toBe(before);
  });

  it("counts a commit when the transaction ends, not at each statement inside it", async () => {
    await t.database.durable();
    const before = t.probe.calls;
    await t.database.db.transaction().execute(async (tx) => {
      await ban(tx, "tx.example");
      // Not committed yet: nothing to sync.
      await t.database.durable();
      expect(t.probe.calls).toBe(before);
    });
    await t.database.durable();
    expect(t.probe.calls).toBe(before + 1);
    // A savepoint used as a transaction: its release is the commit.
    await sql`savepoint outer_write`.execute(t.database.db);
    await sql`insert into banned_senders (pattern, reason, created_at) values ('sp.example', 't', '2026')`.execute(
      t.database.db,
    );
    await t.database.durable();
    expect(t.probe.calls).toBe(before + 1);
    await sql`release outer_write`.execute(t.database.db);
    await t.database.durable();
    expect(t.probe.calls).toBe(before + 2);
  });
});

sqliteOnly("a failed sync of the WAL", () => {
  let t: DurableApp;
  beforeAll(async () => {
    t = await durableApp();
    t.probe.failWith("EIO");
  });
  afterAll(async () => t?.close());

  it("turns the answer to an Open311 POST into a 503 in Open311's format", async () => {
    const res = await open311Post(t, "Lamp out by the mill, on a failing disk.");
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const errors = res.json() as { code: number; description: string }[];
    expect(errors[0]?.code).toBe(503);
  });

  it("turns a form's 303 into an HTML 503 page without the redirect, and stays refused for later writes", async () => {
    const res = await t.app.inject({ method: "POST", url: "/test/ban", payload: { pattern: "fail.example" } });
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toContain("text/html");
    expect(res.headers.location).toBeUndefined();
    // A retry is not trusted either: Linux may have dropped the pages that failed to be written.
    const calls = t.probe.calls;
    await expect(t.database.durable()).rejects.toThrow(/could not sync/);
    expect(t.probe.calls).toBe(calls);
  });

  it("keeps serving reads, and the health checks report the process unavailable", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/v2/requests.json" })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(503);
    expect((await t.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
  });
});

sqliteOnly("the real fdatasync of the WAL", () => {
  it("syncs an existing WAL, and takes a missing one as nothing pending", async () => {
    const dir = mkdtempSync(join(tmpdir(), "civic-walsync-real-"));
    const database = openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await sql`create table t (n integer not null)`.execute(database.db);
      await sql`insert into t (n) values (1)`.execute(database.db);
      expect(existsSync(`${sqlitePath(dir)}-wal`)).toBe(true);
      await expect(database.durable()).resolves.toBeUndefined();
      await expect(fdatasyncFile(join(dir, "no-such-file-wal"))).resolves.toBeUndefined();
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("needs no sync for an in-memory database", async () => {
    const database = openDatabase({ databaseUrl: null, dataDir: tmpdir(), sqliteFile: ":memory:" });
    try {
      await sql`create table t (n integer not null)`.execute(database.db);
      await sql`insert into t (n) values (1)`.execute(database.db);
      await expect(database.durable()).resolves.toBeUndefined();
    } finally {
      await database.close();
    }
  });
});

describeEachDb("Database.durable()", (dialect) => {
  it("resolves after a committed write (at once on PostgreSQL, whose COMMIT already flushed its WAL)", async () => {
    const t = await createTestDatabase(dialect);
    try {
      await ban(t.database.db, "d.example");
      await expect(t.database.durable()).resolves.toBeUndefined();
    } finally {
      await t.cleanup();
    }
  });
});
