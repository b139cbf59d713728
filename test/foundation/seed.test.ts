import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { businesses, categories, places, reports } from "../../src/demo/village.js";
import { createTestApp, createTestDatabase, describeEachDb, type TestApp, testConfig } from "../helpers/app.js";

describeEachDb("demo village", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it("is loaded on first start of an empty database, ready for every feature", async () => {
    const db = t.db.database.db;
    const businesses = await db.selectFrom("businesses").select(["schema_type", "category"]).execute();
    expect(businesses.length).toBeGreaterThanOrEqual(40);
    expect(new Set(businesses.map((b) => b.schema_type)).size).toBeGreaterThanOrEqual(8);
    expect((await db.selectFrom("categories").select("code").execute()).length).toBeGreaterThanOrEqual(8);
    expect((await db.selectFrom("councillors").select("id").execute()).length).toBeGreaterThanOrEqual(3);
    expect((await db.selectFrom("projects").select("id").execute()).length).toBeGreaterThanOrEqual(3);
    expect((await db.selectFrom("places").select("id").execute()).length).toBeGreaterThanOrEqual(10);
    const reports = await db.selectFrom("reports").select(["id", "status", "reporter_email"]).execute();
    expect(reports.length).toBeGreaterThanOrEqual(10);
    expect(reports.every((r) => r.reporter_email === null)).toBe(true);
    const changes = await db.selectFrom("business_changes").select("business_id").execute();
    expect(changes.length).toBe(businesses.length);
  });

  it("gives each report a history whose last entry is its current status", async () => {
    const db = t.db.database.db;
    const reports = await db.selectFrom("reports").select(["id", "status"]).execute();
    for (const r of reports) {
      const history = await db
        .selectFrom("report_updates")
        .select(["status", "created_at"])
        .where("report_id", "=", r.id)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      expect(history[0]?.status).toBe("open");
      expect(history.at(-1)?.status).toBe(r.status);
    }
  });

  it("is deterministic: two loads give the same content", async () => {
    const other = await createTestDatabase(dialect);
    try {
      await seedDemoVillage(other.database.db, new Date("2026-11-22T12:00:00Z"));
      const pick = (rows: { reference: string; title: string; category_code: string }[]) =>
        rows.map((r) => `${r.reference}|${r.title}|${r.category_code}`).sort();
      const a = await t.db.database.db.selectFrom("reports").select(["reference", "title", "category_code"]).execute();
      const b = await other.database.db.selectFrom("reports").select(["reference", "title", "category_code"]).execute();
      expect(pick(b)).toEqual(pick(a));
    } finally {
      await other.cleanup();
    }
  });

  it("is not loaded when SEED_DEMO=false", async () => {
    const empty = await createTestApp(dialect, { env: { SEED_DEMO: "false" } });
    try {
      expect(await empty.db.database.db.selectFrom("businesses").select("id").execute()).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it("asks extra questions of every Open311 datatype somewhere", () => {
    const types = new Set(categories.flatMap((c) => c.attributes.map((a) => a.datatype)));
    expect([...types].sort()).toEqual(["datetime", "multivaluelist", "number", "singlevaluelist", "string", "text"]);
  });

  // PostgreSQL is the database several instances share; a SQLite file serves one process.
  it.runIf(dialect === "postgres")(
    "is loaded once when two instances start together on one empty database (issue 27 #16)",
    async () => {
      const shared = await createTestDatabase(dialect, { migrate: false });
      const config = testConfig(shared.dataDir, {
        SEED_DEMO: "true",
        ...(shared.url ? { DATABASE_URL: shared.url } : {}),
      });
      const second = shared.reopen();
      const started = await Promise.allSettled([
        buildApp(config, { logger: false, database: shared.database }),
        buildApp(config, { logger: false, database: second }),
      ]);
      try {
        expect(started.map((s) => (s.status === "rejected" ? String(s.reason) : "started"))).toEqual([
          "started",
          "started",
        ]);
        const db = shared.database.db;
        const count = async (table: "places" | "businesses" | "reports" | "categories") =>
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .executeTakeFirstOrThrow()
          ).n;
        expect(Number(await count("places"))).toBe(places.length);
        expect(Number(await count("businesses"))).toBe(businesses.length);
        expect(Number(await count("categories"))).toBe(categories.length);
        expect(Number(await count("reports"))).toBe(reports.length);
      } finally {
        for (const s of started) if (s.status === "fulfilled") await s.value.close();
        await second.close().catch(() => {});
        await shared.cleanup();
      }
    },
  );
});
