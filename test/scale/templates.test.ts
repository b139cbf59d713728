import type { Generated, Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StatementTemplates } from "../../src/core/db/templates.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/**
 * Statements compiled once per shape of their values (core/db/templates.ts; a report's insert on SQLite): each run
 * stores and finds what a query built afresh would, and a builder that would not turn every value into a
 * parameter is refused the first time.
 */
interface TplDB {
  tpl: { id: Generated<number>; label: string; note: string | null; size: Generated<number> };
}

type Row = { label: string; note?: string | null; size?: number };

describeEachDb("statement templates", (dialect) => {
  let t: TestDatabase;
  let db: Kysely<TplDB>;
  beforeAll(async () => {
    t = await createTestDatabase(dialect, { migrate: false });
    db = t.database.db as unknown as Kysely<TplDB>;
    await db.schema
      .createTable("tpl")
      .addColumn("id", dialect === "postgres" ? "serial" : "integer", (c) => c.primaryKey())
      .addColumn("label", "text", (c) => c.notNull())
      .addColumn("note", "text")
      .addColumn("size", "integer", (c) => c.notNull().defaultTo(7))
      .execute();
  });
  afterAll(() => t.cleanup());

  it("inserts each row with its own values, leaving out what is undefined, and builds each shape once", async () => {
    let builds = 0;
    const inserts = new StatementTemplates<Row, { id: number }>((row) => {
      builds++;
      return db.insertInto("tpl").values(row).returning("id");
    });
    const rows: Row[] = [
      { label: "first", note: "a", size: 1 },
      { label: "second", note: null, size: 2 },
      { label: "third", note: "c", size: 3 },
      { label: "fourth", note: "d" },
      { label: 'it\'s "quoted" ; drop table tpl', note: "tab\tline\nnext", size: 5 },
    ];
    const ids: number[] = [];
    for (const row of rows) {
      const [stored] = (await db.executeQuery(inserts.compile(row))).rows;
      ids.push(Number(stored?.id));
    }
    expect(new Set(ids).size).toBe(5);
    // first/third/last share a shape; second (a null) and fourth (no size) have their own.
    expect(builds).toBe(3);
    const found = await db.selectFrom("tpl").selectAll().orderBy("id").execute();
    expect(found.map(({ label, note, size }) => ({ label, note, size }))).toEqual([
      { label: "first", note: "a", size: 1 },
      { label: "second", note: null, size: 2 },
      { label: "third", note: "c", size: 3 },
      { label: "fourth", note: "d", size: 7 },
      { label: 'it\'s "quoted" ; drop table tpl', note: "tab\tline\nnext", size: 5 },
    ]);
  });

  it("takes a list's length as part of the shape", async () => {
    const byLabels = new StatementTemplates<{ labels: string[]; min: number }, { label: string }>((v) =>
      db.selectFrom("tpl").select("label").where("label", "in", v.labels).where("size", ">=", v.min).orderBy("id"),
    );
    const run = async (labels: string[], min: number) =>
      (await db.executeQuery(byLabels.compile({ labels, min }))).rows.map((r) => r.label);
    expect(await run(["first", "third"], 0)).toEqual(["first", "third"]);
    expect(await run(["second", "fourth", "nobody"], 0)).toEqual(["second", "fourth"]);
    expect(await run(["first", "third"], 2)).toEqual(["third"]);
    expect(await run(["fourth"], 7)).toEqual(["fourth"]);
  });

  it("refuses a builder that does not make every value a parameter", () => {
    const ignoring = new StatementTemplates<{ label: string; size: number }, unknown>((v) =>
      db.selectFrom("tpl").select("id").where("label", "=", v.label),
    );
    expect(() => ignoring.compile({ label: "first", size: 1 })).toThrow(/size did not become parameters/);
    const naming = new StatementTemplates<{ column: string }, unknown>((v) =>
      db.selectFrom("tpl").select(String(v.column) as "id"),
    );
    expect(() => naming.compile({ column: "label" })).toThrow(/column did not become parameters/);
  });
});
