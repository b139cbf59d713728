import { afterEach, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

describeEachDb("civic CLI", (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  const envFor = (db: TestDatabase) => ({
    DATA_DIR: db.dataDir,
    LOG_LEVEL: "silent",
    ...(db.url ? { DATABASE_URL: db.url } : {}),
  });

  it("migrate brings an empty database up to date", async () => {
    t = await createTestDatabase(dialect, { migrate: false });
    const o = io();
    expect(await runCli(["migrate"], envFor(t), o.io)).toBe(0);
    expect(o.out.join("\n")).toMatch(/up to date/);
    const tables = (await t.database.db.introspection.getTables()).map((x) => x.name);
    expect(tables).toContain("reports");
  });

  it("seed loads the demo village once and refuses a database with data", async () => {
    t = await createTestDatabase(dialect, { migrate: false });
    const first = io();
    expect(await runCli(["seed"], envFor(t), first.io)).toBe(0);
    const count = await t.database.db
      .selectFrom("businesses")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBeGreaterThanOrEqual(40);
    const second = io();
    expect(await runCli(["seed"], envFor(t), second.io)).toBe(1);
    expect(second.err.join("\n")).toMatch(/already has data/);
  });

  it("explains unknown commands and bad configuration", async () => {
    t = await createTestDatabase(dialect, { migrate: false });
    const unknown = io();
    expect(await runCli(["frobnicate"], envFor(t), unknown.io)).toBe(2);
    expect(unknown.err.join("\n")).toMatch(/unknown command "frobnicate"/);
    const bad = io();
    expect(await runCli(["migrate"], { ...envFor(t), DATABASE_URL: "mysql://nope" }, bad.io)).toBe(1);
    expect(bad.err.join("\n")).toMatch(/DATABASE_URL/);
    const help = io();
    expect(await runCli(["help"], envFor(t), help.io)).toBe(0);
    expect(help.out.join("\n")).toMatch(/migrate/);
  });
});
