import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SyncThread } from "../../src/core/db/sync-thread.js";
import { runScript } from "../helpers/run-script.js";

/**
 * SyncThread: the fdatasync of SQLite's WAL on a thread of its own (core/db/sync-thread.ts), which every answer to a
 * write request waits for on SQLite. Real files, a real thread; the lifecycle checks run in a child process.
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "civic-syncthread-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("SyncThread", () => {
  it("syncs existing files, many at once, each answer going to its own caller", async () => {
    const thread = new SyncThread();
    try {
      const files = Array.from({ length: 20 }, (_, i) => join(dir, `file-${i}`));
      for (const file of files) writeFileSync(file, "written, not yet synced");
      await expect(Promise.all(files.map((file) => thread.sync(file)))).resolves.toHaveLength(20);
      expect(thread.running).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it("takes a missing file as nothing to sync, and reports any other failure with its code", async () => {
    const thread = new SyncThread();
    try {
      await expect(thread.sync(join(dir, "no-such-file-wal"))).resolves.toBeUndefined();
      writeFileSync(join(dir, "plain"), "x");
      const failure = thread.sync(join(dir, "plain", "under-a-file"));
      await expect(failure).rejects.toMatchObject({ name: "SyncThreadError", code: "ENOTDIR" });
      // The thread goes on after a failed sync: what a failure means is WalSync's decision.
      await expect(thread.sync(join(dir, "plain"))).resolves.toBeUndefined();
    } finally {
      await thread.close();
    }
  });

  it("starts only when needed, lets pending syncs finish on close, and refuses syncs after it", async () => {
    const thread = new SyncThread();
    expect(thread.running).toBe(false);
    writeFileSync(join(dir, "closing"), "x");
    const pending = thread.sync(join(dir, "closing"));
    const closed = thread.close();
    await expect(pending).resolves.toBeUndefined();
    await closed;
    expect(thread.running).toBe(false);
    await expect(thread.sync(join(dir, "closing"))).rejects.toThrow(/closed/);
  });
});

describe("SyncThread in a process of its own", () => {
  it("keeps the process alive while a sync is pending, and not after: a command that forgot close() still exits", async () => {
    const file = join(dir, "child-file");
    writeFileSync(file, "x");
    const result = await runScript(`
      import { SyncThread } from "./src/core/db/sync-thread.ts";
      const thread = new SyncThread();
      // Nothing but the pending sync keeps this process alive until its answer comes.
      thread.sync(${JSON.stringify(file)}).then(() => console.log("synced"));
    `);
    expect(result).toEqual({ code: 0, output: "synced\n" });
  });

  it("exits after a database whose WAL was synced is closed", async () => {
    const dataDir = join(dir, "child-db");
    const result = await runScript(`
      import { sql } from "kysely";
      import { openDatabase } from "./src/core/db/database.ts";
      const database = openDatabase({ databaseUrl: null, dataDir: ${JSON.stringify(dataDir)} });
      await sql\`create table t (n integer not null)\`.execute(database.db);
      await sql\`insert into t (n) values (1)\`.execute(database.db);
      await database.durable();
      await database.close();
      console.log("closed");
    `);
    expect(result).toEqual({ code: 0, output: "closed\n" });
  });
});
