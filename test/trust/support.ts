import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { sql } from "kysely";
import { loggerOptions } from "../../src/core/http/logger.js";
import { type AccountsHarness, accountsHarness } from "../accounts/support.js";
import type { Dialect } from "../../src/core/db/database.js";

/** An accounts harness (real SMTP, a clock the test moves) whose log lines are kept in `logs`. */
export async function trustHarness(
  dialect: Dialect,
  env: Record<string, string> = {},
): Promise<AccountsHarness & { logs: string[] }> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString("utf8"));
      done();
    },
  });
  const options = loggerOptions("info");
  // Every feature from one client: the per-client write limit is raised so it is not what the test meets.
  const h = await accountsHarness(
    dialect,
    { RATE_LIMIT_WRITE_MAX: "1000", ...env },
    { logger: typeof options === "object" ? { ...options, stream } : options },
  );
  return { ...h, logs };
}

/** Every row of every table (found through the schema, so a new table is covered), as lower-case JSON per table. */
export async function dumpEveryTable(h: AccountsHarness): Promise<Map<string, string>> {
  const db = h.t.db.database.db;
  const tables = (await db.introspection.getTables()).map((t) => t.name);
  const dump = new Map<string, string>();
  for (const table of tables) {
    const rows = await sql`select * from ${sql.table(table)}`.execute(db);
    dump.set(table, JSON.stringify(rows.rows).toLowerCase());
  }
  return dump;
}

/** The values (lower-case) found in any table, with the tables they are in. */
export async function foundInTables(h: AccountsHarness, values: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [table, text] of await dumpEveryTable(h)) {
    for (const v of values) if (text.includes(v.toLowerCase())) found.push(`${v} in ${table}`);
  }
  return found;
}

/** The values found in the raw bytes of the SQLite files (civic.db, -wal, -journal), as UTF-8 or in any case. */
export function foundInSqliteFiles(dataDir: string, values: string[]): string[] {
  const found: string[] = [];
  for (const name of ["civic.db", "civic.db-wal", "civic.db-journal"]) {
    const file = join(dataDir, name);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file).toString("latin1").toLowerCase();
    for (const v of values) if (bytes.includes(v.toLowerCase())) found.push(`${v} in ${name}`);
  }
  return found;
}

/** Waits until PostgreSQL's statistics say `table` was vacuumed (they are published a moment after). */
export async function lastVacuum(h: AccountsHarness, table: string): Promise<string | null> {
  const db = h.t.db.database.db;
  for (let i = 0; i < 100; i++) {
    const r = await sql<{
      last_vacuum: string | null;
    }>`select last_vacuum from pg_stat_user_tables where relname = ${table}`.execute(db);
    const at = r.rows[0]?.last_vacuum ?? null;
    if (at) return at;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}
