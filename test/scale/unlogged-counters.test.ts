import { sql } from "kysely";
import { expect, it } from "vitest";
import { FixedWindowLimiter } from "../../src/core/limits/fixed-window.js";
import { createTestDatabase, describeEachDb } from "../helpers/app.js";

describeEachDb("rate-limit counters (migration 0020b)", (dialect) => {
  it("count as before; on PostgreSQL their table is UNLOGGED, so a counted hit waits for no WAL flush", async () => {
    const t = await createTestDatabase(dialect);
    try {
      const db = t.database.db;
      const limiter = new FixedWindowLimiter(
        () => db,
        "secret",
        () => new Date("2026-11-24T10:00:00Z"),
      );
      const limit = { name: "test", max: 2, windowMs: 60_000 };
      expect((await limiter.hit(limit, "client")).allowed).toBe(true);
      expect((await limiter.hit(limit, "client")).hits).toBe(2);
      expect((await limiter.hit(limit, "client")).allowed).toBe(false);
      if (dialect === "postgres") {
        const { rows } = await sql<{
          relpersistence: string;
        }>`select relpersistence from pg_class where relname = 'rate_limit_counters'`.execute(db);
        expect(rows[0]?.relpersistence).toBe("u");
      }
    } finally {
      await t.cleanup();
    }
  });
});
