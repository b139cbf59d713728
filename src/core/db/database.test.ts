import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { openDatabase } from "./database.js";

it("SQLite runs in WAL mode with synchronous=NORMAL (acknowledged writes wait for WalSync instead)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "civic-db-"));
  const database = openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.db);
    expect(mode.rows[0]?.journal_mode).toBe("wal");
    const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
    expect(sync.rows[0]?.synchronous).toBe(1);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
