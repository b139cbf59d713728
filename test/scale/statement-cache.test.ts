import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/core/db/database.js";

/** SQLite keeps Kysely's prepared statements by SQL text (core/db/database.ts); they must behave as fresh ones. */
describe("SQLite prepared statements kept by SQL text", () => {
  let dir: string;
  let database: Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "civic-stmt-"));
    database = openDatabase({ databaseUrl: null, dataDir: dir });
    await sql`create table t (n integer not null)`.execute(database.db);
    for (let n = 1; n <= 5; n++) await sql`insert into t (n) values (${n})`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const all = () => sql<{ n: number }>`select n from t order by n`.execute(database.db);

  it("answers the same query again with new parameters and new data", async () => {
    const over = (m: number) => sql<{ n: number }>`select n from t where n > ${m} order by n`.execute(database.db);
    expect((await over(3)).rows.map((r) => r.n)).toEqual([4, 5]);
    expect((await over(1)).rows.map((r) => r.n)).toEqual([2, 3, 4, 5]);
    await sql`insert into t (n) values (${6})`.execute(database.db);
    expect((await over(4)).rows.map((r) => r.n)).toEqual([5, 6]);
  });

  it("runs a query again after it was streamed, in full or broken off", async () => {
    const query = database.db.selectFrom("t" as never).select("n" as never);
    const seen: number[] = [];
    for await (const row of query.stream()) seen.push((row as { n: number }).n);
    expect(seen).toHaveLength(6);
    for await (const _ of query.stream()) break;
    expect(await query.execute()).toHaveLength(6);
  });

  it("follows a change of the schema", async () => {
    expect(Object.keys((await all()).rows[0] ?? {})).toEqual(["n"]);
    await sql`alter table t add column label text`.execute(database.db);
    const after = await sql<{ n: number; label: string | null }>`select * from t order by n`.execute(database.db);
    expect(after.rows[0]).toEqual({ n: 1, label: null });
  });
});
