import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { mediaStorage } from "../../src/core/media/storage.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { businesses, categories, places, reports } from "../../src/demo/village.js";
import { createTestApp, createTestDatabase, describeEachDb, type TestApp, testConfig } from "../helpers/app.js";

/** Text as a rendered page holds it. */
const escapeHtml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

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

  it("shows every feature: ideas with supports and a response, project updates and roles, a sent newsletter", async () => {
    const db = t.db.database.db;
    const ideas = await db.selectFrom("ideas").selectAll().execute();
    expect(ideas.length).toBeGreaterThanOrEqual(3);
    expect(ideas.every((i) => i.status !== "unconfirmed" && i.visibility === "public")).toBe(true);
    expect(ideas.every((i) => i.email === null && i.account_id === null)).toBe(true);
    expect(ideas.some((i) => i.supports > 0 && (i.response ?? "") !== "")).toBe(true);
    expect(ideas.some((i) => i.status === "adopted" && i.project_id !== null)).toBe(true);
    const ideasPage = await t.app.inject({ method: "GET", url: "/ideas" });
    expect(ideasPage.statusCode).toBe(200);
    expect(ideasPage.body).not.toContain("No ideas match");
    const answered = ideas.find((i) => (i.response ?? "") !== "");
    const ideaPage = await t.app.inject({ method: "GET", url: `/ideas/${answered?.id}` });
    expect(ideaPage.statusCode).toBe(200);
    expect(ideaPage.body).toContain(escapeHtml(answered?.response ?? "-"));

    const updates = await db.selectFrom("project_updates").selectAll().orderBy("posted_at", "desc").execute();
    expect(updates.length).toBeGreaterThanOrEqual(2);
    const updated = updates[0];
    const projectPage = await t.app.inject({ method: "GET", url: `/projects/${updated?.project_id}` });
    expect(projectPage.body).toContain(escapeHtml(updated?.title ?? "-"));

    // Volunteers wanted: projects name their roles, which the volunteer form offers.
    const withRoles = (await db.selectFrom("projects").select(["roles", "volunteers_wanted"]).execute()).filter(
      (p) => (JSON.parse(p.roles) as string[]).length > 0,
    );
    expect(withRoles.length).toBeGreaterThanOrEqual(2);
    expect(withRoles.every((p) => p.volunteers_wanted === 1)).toBe(true);
    const role = (JSON.parse(withRoles[0]?.roles ?? "[]") as string[])[0] ?? "-";
    expect((await t.app.inject({ method: "GET", url: "/volunteer" })).body).toContain(escapeHtml(role));

    // A sent issue in the public archive, sent to nobody: the demo has no subscribers and mails nothing.
    const issues = await db.selectFrom("newsletter_issues").selectAll().where("status", "=", "sent").execute();
    expect(issues.length).toBeGreaterThanOrEqual(1);
    const archive = await t.app.inject({ method: "GET", url: "/newsletter/archive" });
    expect(archive.body).toContain(escapeHtml(issues[0]?.title ?? "-"));
    const issuePage = await t.app.inject({ method: "GET", url: `/newsletter/archive/${issues[0]?.id}` });
    expect(issuePage.statusCode).toBe(200);
    expect(await db.selectFrom("newsletter_subscribers").select("id").execute()).toEqual([]);
    expect(await db.selectFrom("newsletter_sends").select("issue_id").execute()).toEqual([]);
    expect(await db.selectFrom("outbox").select("id").execute()).toEqual([]);
  });

  it("has reports in several statuses with photos, whose derived sizes are served", async () => {
    const db = t.db.database.db;
    const photos = await db
      .selectFrom("report_photos")
      .innerJoin("reports", "reports.id", "report_photos.report_id")
      .select(["report_photos.hash", "report_photos.width", "reports.reference", "reports.status"])
      .execute();
    expect(new Set(photos.map((p) => p.status)).size).toBeGreaterThanOrEqual(3);
    for (const p of photos) {
      for (const file of [`${p.hash}.jpg`, `${p.hash}-thumb.jpg`]) {
        const res = await t.app.inject({ method: "GET", url: `/photos/${file}` });
        expect(res.statusCode, file).toBe(200);
        expect(res.headers["content-type"]).toBe("image/jpeg");
        expect(res.rawPayload.subarray(0, 2).toString("hex")).toBe("ffd8");
      }
    }
    const first = photos[0];
    const page = await t.app.inject({ method: "GET", url: `/reports/${first?.reference}` });
    expect(page.body).toContain(`/photos/${first?.hash}-thumb.jpg`);
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
      await seedDemoVillage(
        other.database.db,
        new Date("2026-11-22T12:00:00Z"),
        mediaStorage(testConfig(other.dataDir)),
      );
      const pick = (rows: { reference: string; title: string; category_code: string }[]) =>
        rows.map((r) => `${r.reference}|${r.title}|${r.category_code}`).sort();
      const a = await t.db.database.db.selectFrom("reports").select(["reference", "title", "category_code"]).execute();
      const b = await other.database.db.selectFrom("reports").select(["reference", "title", "category_code"]).execute();
      expect(pick(b)).toEqual(pick(a));
      const photos = async (d: typeof other.database.db) =>
        (await d.selectFrom("report_photos").select("hash").orderBy("hash").execute()).map((p) => p.hash);
      expect(await photos(other.database.db)).toEqual(await photos(t.db.database.db));
      const ideas = async (d: typeof other.database.db) =>
        (await d.selectFrom("ideas").select(["title", "supports"]).orderBy("title").execute()).map(
          (i) => `${i.title}|${i.supports}`,
        );
      expect(await ideas(other.database.db)).toEqual(await ideas(t.db.database.db));
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
