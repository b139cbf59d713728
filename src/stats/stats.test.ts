import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import type { DB, ReportStatus, ReportVisibility } from "../core/db/schema.js";
import { reportFigures, reportsPer, weekStart } from "./figures.js";

const NOW = new Date("2026-11-24T12:00:00.000Z");

interface Scripted {
  category: string;
  created: string;
  /** Status changes after creation: [status, ISO time]. */
  history?: [ReportStatus, string][];
  visibility?: ReportVisibility;
}

/** Reports with a known history; the figures below follow from them. */
const SCRIPT: Scripted[] = [
  { category: "pothole", created: "2026-11-01T09:00:00.000Z", history: [["fixed", "2026-11-03T09:00:00.000Z"]] },
  { category: "pothole", created: "2026-10-10T09:00:00.000Z", history: [["fixed", "2026-10-14T09:00:00.000Z"]] },
  { category: "streetlight", created: "2026-09-05T09:00:00.000Z" },
  { category: "streetlight", created: "2026-11-20T09:00:00.000Z", history: [["closed", "2026-11-22T09:00:00.000Z"]] },
  { category: "internal", created: "2026-11-02T09:00:00.000Z" },
  {
    category: "pothole",
    created: "2026-11-05T09:00:00.000Z",
    history: [["fixed", "2026-11-15T09:00:00.000Z"]],
    visibility: "hidden",
  },
  // Before the 12 months of the public figures (they start on 1 December 2025).
  { category: "pothole", created: "2025-11-30T09:00:00.000Z", history: [["fixed", "2025-12-01T09:00:00.000Z"]] },
];

async function load(db: Kysely<DB>): Promise<void> {
  await db
    .insertInto("categories")
    .values(
      [
        ["pothole", "Potholes", 1],
        ["streetlight", "Street lights", 1],
        ["internal", "Internal category", 0],
      ].map(([code, name, isPublic], i) => ({
        code: code as string,
        name: name as string,
        description: "",
        group_name: null,
        keywords: "[]",
        department_name: null,
        department_email: null,
        attributes: "[]",
        is_public: isPublic as number,
        sort_order: i,
      })),
    )
    .execute();
  for (const [i, r] of SCRIPT.entries()) {
    const last = r.history?.at(-1);
    const { id } = await db
      .insertInto("reports")
      .values({
        reference: `TEST-${i}`,
        category_code: r.category,
        title: `Report ${i}`,
        description: "Scripted",
        latitude: 50.98,
        longitude: -2.04,
        location_text: null,
        place_id: null,
        address_id: null,
        attributes: "{}",
        status: last?.[0] ?? "open",
        visibility: r.visibility ?? "public",
        reporter_email: null,
        reporter_name: null,
        reporter_phone: null,
        share_contact: 0,
        device_id: null,
        account_id: null,
        source: "web",
        api_key_id: null,
        created_at: r.created,
        updated_at: last?.[1] ?? r.created,
        forwarded_at: null,
        forwarded_to: null,
        expected_at: null,
        media_url: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    let previous: ReportStatus = "open";
    for (const [status, at] of r.history ?? []) {
      await db
        .insertInto("report_updates")
        .values({ report_id: id, status, previous_status: previous, note: "", created_at: at })
        .execute();
      previous = status;
    }
  }
}

describeEachDb("report statistics", (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, { now: () => NOW });
    await load(t.db.database.db);
  });
  afterAll(async () => t?.close());

  it("gives residents the figures of public reports of the last 12 months", async () => {
    const res = await t.app.inject("/stats.json");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["set-cookie"]).toBeUndefined();
    const body = res.json();
    expect(body).toMatchObject({
      period: { from: "2025-12-01", to: "2026-11-24" },
      reports: 5,
      fixed: 2,
      shareFixed: 0.4,
      medianDaysToFix: 3,
    });
    expect(body.reportsPerMonth).toHaveLength(12);
    expect(body.reportsPerMonth.slice(-3)).toEqual([
      { month: "2026-09", reports: 1 },
      { month: "2026-10", reports: 1 },
      { month: "2026-11", reports: 3 },
    ]);
    expect(body.byCategory).toEqual([
      { category: "pothole", name: "Potholes", reports: 2 },
      { category: "streetlight", name: "Street lights", reports: 2 },
      { category: "other", name: "Other categories", reports: 1 },
    ]);
    expect(body.byStatus.find((s: { status: string }) => s.status === "closed")).toEqual({
      status: "closed",
      name: "Closed",
      reports: 1,
    });
    expect(JSON.stringify(body)).not.toContain("Internal category");

    const again = await t.app.inject({ url: "/stats.json", headers: { "if-none-match": String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it("shows the same figures on /stats with charts and data tables", async () => {
    const res = await t.app.inject("/stats");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("<h1>Report statistics</h1>");
    expect(res.body).toMatch(/<dt>Fixed<\/dt><dd>2 \(40%\)<\/dd>/);
    expect(res.body).toContain("3 days");
    expect(res.body.match(/<figure class="chart"/g)).toHaveLength(3);
    expect(res.body.match(/<svg /g)?.length).toBeGreaterThanOrEqual(3);
    expect(res.body).toContain('<th scope="row">Nov 2026</th><td>3</td>');
    expect(res.body).toContain('<th scope="row">Street lights</th><td>2</td>');
  });

  it("counts hidden reports and weeks for staff", async () => {
    const db = t.db.database.db;
    const staff = await reportFigures(db, new Date("2025-12-01T00:00:00.000Z"), NOW, { includeHidden: true });
    expect(staff).toMatchObject({ reports: 6, fixed: 3, medianDaysToFix: 4 });
    expect(staff.byCategory.map((c) => c.label)).toContain("Internal category");
    const weeks = await reportsPer(db, dialect, "week", 4, NOW, { includeHidden: true });
    expect(weeks).toEqual([
      { key: "2026-11-02", count: 2 },
      { key: "2026-11-09", count: 0 },
      { key: "2026-11-16", count: 1 },
      { key: "2026-11-23", count: 0 },
    ]);
    expect(weekStart(new Date("2026-11-23T00:00:00.000Z"), 0).toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(weekStart(new Date("2026-11-29T23:59:00.000Z"), 1).toISOString()).toBe("2026-11-16T00:00:00.000Z");
  });
});
