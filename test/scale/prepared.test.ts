import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/core/db/database.js";
import { firstPrepared, runPrepared } from "../../src/core/db/prepared.js";
import type { DB } from "../../src/core/db/schema.js";
import { FixedWindowLimiter } from "../../src/core/limits/fixed-window.js";
import { createApiKey, findActiveApiKey } from "../../src/open311/keys.js";
import { openCategory } from "../../src/open311/services.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/**
 * The statements every request or report runs are named prepared statements on PostgreSQL
 * (core/db/prepared.ts): parsed once per connection, with the same answers as before, also after another
 * instance changed the schema under them. On SQLite they are ordinary queries.
 */
/** One connection (PostgreSQL), so the session's prepared statements can be listed; SQLite has one anyway. */
function oneConnection(t: TestDatabase): Database {
  return t.url ? openDatabase({ databaseUrl: t.url, dataDir: t.dataDir, poolSize: 1 }) : t.database;
}

function addCategory(db: Kysely<DB>, code: string, name: string) {
  return db
    .insertInto("categories")
    .values({ code, name, description: "", is_public: 1, sort_order: 1 } as never)
    .execute();
}

describeEachDb("prepared statements for the hot statements", (dialect) => {
  it("answer as ordinary queries; on PostgreSQL each is parsed once per connection under a name", async () => {
    const t = await createTestDatabase(dialect);
    const one = oneConnection(t);
    try {
      const db = one.db;
      await addCategory(db, "pothole", "Pothole");
      const { key } = await createApiKey(db, "App", new Date("2026-11-24T10:00:00Z"));
      const limiter = new FixedWindowLimiter(
        () => db,
        "secret",
        () => new Date("2026-11-24T10:00:00Z"),
      );
      const limit = { name: "test", max: 2, windowMs: 60_000 };
      for (let round = 0; round < 7; round++) {
        // Past the fifth run PostgreSQL may switch to a generic plan: the answers must not change.
        expect((await findActiveApiKey(db, key))?.name).toBe("App");
        expect(await findActiveApiKey(db, `${key}x`)).toBeNull();
        expect((await openCategory(db, "pothole")).name).toBe("Pothole");
        await expect(openCategory(db, "nothing")).rejects.toMatchObject({ code: "not_found" });
        expect((await limiter.hit(limit, `client-${round}`)).hits).toBe(1);
      }
      expect((await limiter.hit(limit, "client-0")).hits).toBe(2);
      expect((await limiter.hit(limit, "client-0")).allowed).toBe(false);
      if (dialect === "postgres") {
        const { rows } = await sql<{
          name: string;
          statement: string;
        }>`select name, statement from pg_prepared_statements`.execute(db);
        const statements = rows.filter((r) => r.name.startsWith("civic_")).map((r) => r.statement);
        expect(statements.some((s) => s.includes(`from "api_keys"`))).toBe(true);
        expect(statements.some((s) => s.includes(`from "categories"`))).toBe(true);
        expect(statements.some((s) => s.includes(`into "rate_limit_counters"`))).toBe(true);
        // Each once, however often it ran.
        expect(new Set(statements).size).toBe(statements.length);
      }
    } finally {
      if (one !== t.database) await one.close();
      await t.cleanup();
    }
  });

  it("keeps answering after another instance adds a column to a table a kept statement reads", async () => {
    const t = await createTestDatabase(dialect);
    const one = oneConnection(t);
    const other = t.reopen();
    try {
      const db = one.db;
      await addCategory(db, "litter", "Litter");
      const read = () => firstPrepared(db, db.selectFrom("categories").selectAll().where("code", "=", "litter"));
      for (let k = 0; k < 6; k++) expect((await read())?.name).toBe("Litter");
      // A newer release's migration run by another process: `select *` now has one more column.
      await sql`alter table categories add column extra_note text default 'new'`.execute(other.db);
      const after = (await read()) as Record<string, unknown> | undefined;
      expect(after?.name).toBe("Litter");
      expect(after?.extra_note).toBe("new");
      expect((await read())?.name).toBe("Litter");
    } finally {
      await other.close();
      if (one !== t.database) await one.close();
      await t.cleanup();
    }
  });

  // PostgreSQL only, and last: the names are kept per process, so it fills the set for any test after it.
  it.runIf(dialect === "postgres")("names at most 64 statements in a process; more run unnamed", async () => {
    const t = await createTestDatabase(dialect);
    const one = oneConnection(t);
    try {
      const db = one.db;
      for (let n = 1; n <= 80; n++) {
        const { rows } = await runPrepared(db, db.selectNoFrom(sql<number>`${sql.lit(n)}`.as("n")));
        expect(Number(rows[0]?.n)).toBe(n);
      }
      const { rows } = await sql<{ c: number }>`select count(*) as c from pg_prepared_statements`.execute(db);
      expect(Number(rows[0]?.c)).toBeLessThanOrEqual(64);
    } finally {
      if (one !== t.database) await one.close();
      await t.cleanup();
    }
  });
});
