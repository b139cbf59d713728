import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { BACKSTOP_CHECKPOINT_PAGES, Checkpointer } from "../../src/core/db/checkpointer.js";
import { openDatabase, sqlitePath } from "../../src/core/db/database.js";
import { runScript } from "../helpers/run-script.js";
import { until } from "../helpers/wait.js";

/**
 * SQLite checkpoints run on a thread of their own (core/db/checkpointer.ts), not on the event loop's thread of the
 * connection that happens to commit past 1,000 WAL pages.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "civic-ckpt-"));
  dirs.push(dir);
  return dir;
}

it("the app's connection checkpoints only as a backstop", async () => {
  const dir = tempDir();
  const database = openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
    expect(rows[0]?.wal_autocheckpoint).toBe(BACKSTOP_CHECKPOINT_PAGES);
  } finally {
    await database.close();
  }
});

it("copies committed pages into the database file from its own thread once the app has committed enough", async () => {
  const dir = tempDir();
  const file = join(dir, "t.db");
  const setup = new SQLite(file);
  setup.pragma("journal_mode = WAL");
  setup.pragma("wal_autocheckpoint = 0"); // only the checkpointer may copy pages in this test
  setup.exec("create table t (n integer primary key, text text not null)");
  const checkpointer = new Checkpointer(file, { startAfter: 50, everyMs: 20 });
  try {
    const insert = setup.prepare("insert into t (text) values (?)");
    const before = statSync(file).size;
    for (let k = 0; k < 49; k++) {
      insert.run("x".repeat(2000));
      checkpointer.noteCommit();
    }
    expect(checkpointer.running).toBe(false);
    await sleep(100);
    expect(statSync(file).size).toBe(before); // every row is still only in the WAL
    insert.run("x".repeat(2000));
    checkpointer.noteCommit();
    expect(checkpointer.running).toBe(true);
    // Until the checkpoint has copied every page (the file grows in steps while it runs).
    await until(() => statSync(file).size > before + 49 * 2000);
    expect(statSync(file).size).toBeGreaterThan(before + 49 * 2000);
    // Readers see the same rows, whichever file holds them.
    expect(setup.prepare("select count(*) as c from t").get()).toEqual({ c: 50 });
  } finally {
    await checkpointer.close();
    setup.close();
  }
  expect(checkpointer.running).toBe(false);
});

it("stops its thread when the database closes, and the WAL is folded into the file", async () => {
  const dir = tempDir();
  const database = openDatabase({ databaseUrl: null, dataDir: dir });
  await sql`create table t (n integer primary key)`.execute(database.db);
  // Past the default start (200 commits): the thread runs.
  for (let k = 0; k < 210; k++) await sql`insert into t default values`.execute(database.db);
  await database.close();
  // The app's connection closed last, so it checkpointed and removed the WAL; nothing is left open.
  expect(existsSync(`${sqlitePath(dir)}-wal`)).toBe(false);
  const again = new SQLite(sqlitePath(dir), { readonly: true });
  expect(again.prepare("select count(*) as c from t").get()).toEqual({ c: 210 });
  again.close();
});

it("never keeps the process alive: a command that commits enough to start the thread exits without close()", async () => {
  const dir = tempDir();
  const result = await runScript(
    `
    import { setTimeout as sleep } from "node:timers/promises";
    import { sql } from "kysely";
    import { openDatabase } from "./src/core/db/database.ts";
    const database = openDatabase({ databaseUrl: null, dataDir: ${JSON.stringify(dir)} });
    await sql\`create table t (n integer not null)\`.execute(database.db);
    for (let n = 0; n < 300; n++) await sql\`insert into t (n) values (\${n})\`.execute(database.db);
    await sleep(300);
    console.log("done");
  `,
    10_000,
  );
  expect(result).toEqual({ code: 0, output: "done\n" });
});
