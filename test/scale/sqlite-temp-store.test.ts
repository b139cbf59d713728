import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { openDatabase } from "../../src/core/db/database.js";

// A report's insert fires triggers, so SQLite keeps a statement journal for it; on a file (the default) that
// journal outgrew its 64 KiB in-memory limit with the reports table's indexes and became a temporary file per insert.
it("SQLite keeps statement journals and temporary tables in memory (temp_store = MEMORY)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "civic-db-"));
  const database = openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.db);
    expect(rows[0]?.temp_store).toBe(2);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
