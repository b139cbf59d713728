import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

describeEachDb("civic backup", (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it("copies the SQLite database while it is open; PostgreSQL is pointed to pg_dump", async () => {
    t = await createTestDatabase(dialect);
    await seedDemoVillage(t.database.db, new Date());
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    const env = { DATA_DIR: t.dataDir, LOG_LEVEL: "silent", ...(t.url ? { DATABASE_URL: t.url } : {}) };
    const file = join(t.dataDir, "backup.db");
    const code = await runCli(["backup", file], env, io);
    if (dialect === "postgres") {
      expect(code).toBe(1);
      expect(err.join("\n")).toContain("pg_dump");
      return;
    }
    expect(code, err.join("\n")).toBe(0);
    // The app's own connection stayed open throughout; the copy holds the same reports.
    const copy = new SQLite(file, { readonly: true });
    const live = await t.database.db
      .selectFrom("reports")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(copy.prepare("select count(*) as n from reports").get()).toEqual({ n: Number(live.n) });
    copy.close();
    expect(await runCli(["backup", file], env, io)).toBe(1);
    expect(err.join("\n")).toContain("exists already");
  });
});
