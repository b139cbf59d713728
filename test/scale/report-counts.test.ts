import { Migrator } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrations } from "../../src/core/db/migrations/index.js";
import type { ReportStatus } from "../../src/core/db/schema.js";
import { moderate } from "../../src/moderation/decisions.js";
import { publicReportCount } from "../../src/reports/counts.js";
import { REPORT_STATUSES } from "../../src/reports/model.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";

/**
 * The "of N" of /reports comes from counts kept by triggers (migration 0019_scale_counts), not from counting rows.
 * Whatever changes a report (a new one, a status change, a category change, hiding, unhiding, removing, deleting),
 * the kept counts equal a real count of public reports, per category and status.
 */
describeEachDb("public report counts kept by triggers", (dialect) => {
  let t: TestApp;
  const actor = { accountId: null, role: "admin" as const };
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function expectCountsTrue(): Promise<void> {
    const db = t.app.civic.database.db;
    const real = await db
      .selectFrom("reports")
      .select(["category_code", "status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("visibility", "=", "public")
      .groupBy(["category_code", "status"])
      .execute();
    const total = real.reduce((sum, r) => sum + Number(r.n), 0);
    expect(await publicReportCount(db, {})).toBe(total);
    const categories = [...new Set(real.map((r) => r.category_code)), "streetlight", "no-such-category"];
    for (const category of categories) {
      const inCategory = real.filter((r) => r.category_code === category);
      expect(await publicReportCount(db, { category })).toBe(inCategory.reduce((s, r) => s + Number(r.n), 0));
      for (const status of ["open", "fixed"] as ReportStatus[]) {
        const n = inCategory.filter((r) => r.status === status).reduce((s, r) => s + Number(r.n), 0);
        expect(await publicReportCount(db, { category, status })).toBe(n);
      }
    }
    for (const status of REPORT_STATUSES) {
      const n = real.filter((r) => r.status === status).reduce((s, r) => s + Number(r.n), 0);
      expect(await publicReportCount(db, { status })).toBe(n);
    }
  }

  const shownTotal = async (url: string) => /of (\d+) reports?\./.exec((await t.app.inject(url)).body)?.[1];

  it("match a real count after new reports, status and category changes, moderation and deletion", async () => {
    const civic = t.app.civic;
    const db = civic.database.db;
    await expectCountsTrue();
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      made.push((await submitReport(civic, reportSubmission({ description: `Counted pothole ${i}.` }))).reference);
    }
    await expectCountsTrue();

    await db.updateTable("reports").set({ status: "fixed" }).where("reference", "in", made.slice(0, 2)).execute();
    await db
      .updateTable("reports")
      .set({ category_code: "streetlight" })
      .where("reference", "=", made[2] ?? "")
      .execute();
    // An update that touches other columns only leaves the counts alone.
    await db
      .updateTable("reports")
      .set({ title: "Renamed" })
      .where("reference", "=", made[3] ?? "")
      .execute();
    await expectCountsTrue();

    const decide = (id: string, action: string) =>
      moderate(civic, { kind: "report", id, action, reason: "Counting test.", actor });
    await decide(made[0] ?? "", "hide");
    await decide(made[1] ?? "", "remove");
    await decide(made[3] ?? "", "hide");
    await expectCountsTrue();
    const hiddenTotal = await publicReportCount(db, {});
    await decide(made[3] ?? "", "unhide");
    expect(await publicReportCount(db, {})).toBe(hiddenTotal + 1);
    await expectCountsTrue();

    // Deleting (e.g. erasure of a person's data) and a rolled-back change leave them true as well.
    await db
      .deleteFrom("report_updates")
      .where(
        "report_id",
        "in",
        db
          .selectFrom("reports")
          .select("id")
          .where("reference", "=", made[4] ?? ""),
      )
      .execute();
    await db
      .deleteFrom("reports")
      .where("reference", "=", made[4] ?? "")
      .execute();
    await db
      .transaction()
      .execute(async (tx) => {
        await tx
          .updateTable("reports")
          .set({ visibility: "hidden" })
          .where("reference", "=", made[5] ?? "")
          .execute();
        throw new Error("roll back");
      })
      .catch(() => {});
    await expectCountsTrue();

    // The public list says the same.
    expect(Number(await shownTotal("/reports"))).toBe(await publicReportCount(db, {}));
    expect(Number(await shownTotal("/reports?category=pothole&status=open"))).toBe(
      await publicReportCount(db, { category: "pothole", status: "open" }),
    );
  });
});

describeEachDb("migration 0019_scale_counts down and up again", (dialect) => {
  it("drops its table, triggers and indexes and puts them back with true counts", async () => {
    const t = await createTestApp(dialect, { seed: true });
    try {
      const db = t.app.civic.database.db;
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
        allowUnorderedMigrations: true,
      });
      const down = await migrator.migrateTo("0017_catalogue");
      expect(down.error).toBeUndefined();
      // Every later migration is undone first, newest first (the trust migrations 0021- among them).
      const later = Object.keys(migrations)
        .filter((name) => name > "0017_catalogue")
        .sort()
        .reverse();
      expect(later.slice(-3)).toEqual(["0020b_unlogged_counters", "0020_public_data_version", "0019_scale_counts"]);
      expect(down.results?.map((r) => r.migrationName)).toEqual(later);
      // Without the triggers a change to the reports changes no count; the migration counts the truth when it runs
      // again. (A report hidden with the schema of then: today's code writes columns of later migrations.)
      const first = await db
        .selectFrom("reports")
        .select("id")
        .where("visibility", "=", "public")
        .orderBy("id")
        .executeTakeFirstOrThrow();
      await db.updateTable("reports").set({ visibility: "hidden" }).where("id", "=", first.id).execute();
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const real = await db
        .selectFrom("reports")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("visibility", "=", "public")
        .executeTakeFirstOrThrow();
      expect(await publicReportCount(db, {})).toBe(Number(real.n));
    } finally {
      await t.close();
    }
  });
});
