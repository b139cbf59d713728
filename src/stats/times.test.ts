import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { signInAs } from "../../test/helpers/staff.js";
import type { DB, ReportEventAuthor, ReportEventKind, ReportStatus, ReportVisibility } from "../core/db/schema.js";
import { recordReportEvent } from "../reports/events.js";
import { responseTimes } from "./figures.js";

const NOW = new Date("2026-11-24T12:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;

interface Step {
  /** Days after the report was made. */
  after: number;
  by: ReportEventAuthor;
  event: ReportEventKind;
  status: ReportStatus;
  internal?: boolean;
  visibility?: ReportVisibility;
  email?: string;
}

interface Scripted {
  category: string;
  created: string;
  steps?: Step[];
  visibility?: ReportVisibility;
}

const staff = (after: number, status: ReportStatus, event: ReportEventKind = "status"): Step => ({
  after,
  by: "staff",
  event,
  status,
});

/**
 * Reports with a known history (issue 36: "How long things take, in public"); the figures below follow from them.
 * Potholes: first responses after 1, 2 and 6 days (median 2), fixed after 3 and 5 days (median 4), one of four
 * marked fixed by its reporter. Highways also has a drain answered and fixed after 10 days, which its reporter then
 * confirmed (it was fixed already: not a move to fixed by the reporter).
 */
const SCRIPT: Scripted[] = [
  { category: "pothole", created: "2026-11-01T09:00:00.000Z", steps: [staff(1, "investigating"), staff(3, "fixed")] },
  {
    category: "pothole",
    created: "2026-11-02T09:00:00.000Z",
    steps: [
      { after: 2, by: "council", event: "update", status: "open" },
      { after: 5, by: "reporter", event: "questionnaire", status: "fixed", email: "reporter@residents.test" },
    ],
  },
  {
    category: "pothole",
    created: "2026-11-03T09:00:00.000Z",
    steps: [
      // Residents' updates and "seen too" are not responses; nor is a staff update moderators hid.
      { after: 0.5, by: "resident", event: "update", status: "open", email: "resident@residents.test" },
      { after: 0.6, by: "resident", event: "seen", status: "open", internal: true, email: "seen@residents.test" },
      { ...staff(4, "open", "update"), visibility: "hidden" },
      staff(6, "investigating"),
    ],
  },
  { category: "pothole", created: "2026-11-04T09:00:00.000Z" },
  {
    category: "drain",
    created: "2026-10-01T09:00:00.000Z",
    steps: [
      staff(10, "fixed"),
      { after: 12, by: "reporter", event: "questionnaire", status: "fixed", email: "reporter@residents.test" },
    ],
  },
  {
    category: "bench",
    created: "2026-11-10T09:00:00.000Z",
    steps: [
      // A moderator's record is internal; the platform's own change is no response, but it was fixed.
      { after: 0.5, by: "staff", event: "moderation", status: "open", internal: true },
      { after: 1, by: "system", event: "status", status: "fixed" },
    ],
  },
  { category: "internal", created: "2026-11-05T09:00:00.000Z", steps: [staff(1, "investigating")] },
  { category: "pothole", created: "2026-11-06T09:00:00.000Z", steps: [staff(0.1, "fixed")], visibility: "hidden" },
  // Before the 12 months of the public figures (they start on 1 December 2025).
  { category: "pothole", created: "2025-11-30T09:00:00.000Z", steps: [staff(0.1, "fixed")] },
];

async function load(db: Kysely<DB>): Promise<void> {
  await db
    .insertInto("categories")
    .values(
      (
        [
          ["pothole", "Potholes", "Highways", 1],
          ["drain", "Drains", "Highways", 1],
          ["bench", "Benches", null, 1],
          ["internal", "Internal category", "Secret Unit", 0],
        ] as const
      ).map(([code, name, department, isPublic], i) => ({
        code,
        name,
        description: "",
        group_name: null,
        keywords: "[]",
        department_name: department,
        department_email: department ? "dept@residents.test" : null,
        attributes: "[]",
        is_public: isPublic,
        sort_order: i,
      })),
    )
    .execute();
  for (const [i, r] of SCRIPT.entries()) {
    const created = Date.parse(r.created);
    const at = (after: number) => new Date(created + after * DAY).toISOString();
    const last = r.steps?.at(-1);
    const { id } = await db
      .insertInto("reports")
      .values({
        reference: `TIMES-${i}`,
        category_code: r.category,
        title: `Report ${i}`,
        description: "Scripted",
        latitude: 50.98,
        longitude: -2.04,
        location_text: null,
        place_id: null,
        address_id: null,
        attributes: "{}",
        status: last?.status ?? "open",
        visibility: r.visibility ?? "public",
        reporter_email: "reporter@residents.test",
        reporter_name: "Rita Reporter",
        reporter_phone: null,
        share_contact: 0,
        device_id: null,
        account_id: null,
        source: "web",
        api_key_id: null,
        created_at: r.created,
        updated_at: last ? at(last.after) : r.created,
        forwarded_at: null,
        forwarded_to: null,
        expected_at: null,
        media_url: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("report_updates")
      .values({
        report_id: id,
        status: "open",
        previous_status: null,
        note: "",
        created_at: r.created,
        author_kind: "reporter",
        event: "report",
      })
      .execute();
    let previous: ReportStatus = "open";
    for (const s of r.steps ?? []) {
      await db
        .insertInto("report_updates")
        .values({
          report_id: id,
          status: s.status,
          previous_status: previous,
          note: s.event === "update" ? "A note" : "",
          created_at: at(s.after),
          author_kind: s.by,
          event: s.event,
          internal: s.internal ? 1 : 0,
          visibility: s.visibility ?? "public",
          author_email: s.email ?? null,
        })
        .execute();
      previous = s.status;
    }
  }
}

describeEachDb("how long things take (report statistics)", (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, { now: () => NOW });
    await load(t.db.database.db);
  });
  afterAll(async () => t?.close());

  const potholes = {
    category: "pothole",
    name: "Potholes",
    reports: 4,
    firstResponses: 3,
    medianDaysToFirstResponse: 2,
    fixes: 2,
    medianDaysToFix: 4,
    fixedByReporter: 1,
    shareFixedByReporter: 0.25,
  };

  it("gives per category and per department the median times to a first response and to fixed, and the reporters' fixes", async () => {
    const res = await t.app.inject("/stats.json");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.times.reportsCounted).toBe(7);
    expect(body.times.byCategory).toEqual([
      potholes,
      {
        category: "bench",
        name: "Benches",
        reports: 1,
        firstResponses: 0,
        medianDaysToFirstResponse: null,
        fixes: 1,
        medianDaysToFix: 1,
        fixedByReporter: 0,
        shareFixedByReporter: 0,
      },
      {
        category: "drain",
        name: "Drains",
        reports: 1,
        firstResponses: 1,
        medianDaysToFirstResponse: 10,
        fixes: 1,
        medianDaysToFix: 10,
        fixedByReporter: 0,
        shareFixedByReporter: 0,
      },
      {
        category: "other",
        name: "Other categories",
        reports: 1,
        firstResponses: 1,
        medianDaysToFirstResponse: 1,
        fixes: 0,
        medianDaysToFix: null,
        fixedByReporter: 0,
        shareFixedByReporter: 0,
      },
    ]);
    expect(body.times.byDepartment).toEqual([
      {
        department: "Highways",
        name: "Highways",
        reports: 5,
        firstResponses: 4,
        medianDaysToFirstResponse: 4,
        fixes: 3,
        medianDaysToFix: 5,
        fixedByReporter: 1,
        shareFixedByReporter: 0.2,
      },
      expect.objectContaining({ department: "other", name: "Other categories", reports: 1 }),
      expect.objectContaining({ department: null, name: "Village volunteers", reports: 1, medianDaysToFix: 1 }),
    ]);
    expect(body.times.all).toMatchObject({
      name: "All reports",
      reports: 7,
      firstResponses: 5,
      medianDaysToFirstResponse: 2,
      fixes: 4,
      medianDaysToFix: 4,
      fixedByReporter: 1,
    });
  });

  it("shows no personal data and nothing of categories that are not public", async () => {
    for (const url of ["/stats.json", "/stats"]) {
      const body = (await t.app.inject(url)).body;
      for (const secret of ["residents.test", "Rita", "Internal category", "Secret Unit", "TIMES-"]) {
        expect(body, `${url} shows ${secret}`).not.toContain(secret);
      }
    }
  });

  it("shows the same figures on /stats as data tables with captions and headers", async () => {
    const res = await t.app.inject("/stats");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("<caption>How long things take, by category</caption>");
    expect(res.body).toContain("<caption>How long things take, by department</caption>");
    expect(res.body).toContain('<th scope="col">Median time to a first public response</th>');
    expect(res.body).toMatch(
      /<th scope="row">Potholes<\/th><td data-label="Reports">4<\/td><td[^>]*>2 days<\/td><td[^>]*>4 days<\/td><td[^>]*>1 \(25%\)<\/td>/,
    );
    expect(res.body).toMatch(
      /<th scope="row">Village volunteers<\/th><td[^>]*>1<\/td><td[^>]*>–<\/td><td[^>]*>1 day<\/td>/,
    );
  });

  it("counts hidden reports and categories for staff figures", async () => {
    const staffTimes = await responseTimes(t.db.database.db, new Date("2025-12-01T00:00:00.000Z"), {
      includeHidden: true,
    });
    expect(staffTimes.sampled).toBe(8);
    expect(staffTimes.byCategory.find((r) => r.key === "pothole")).toMatchObject({ reports: 5, fixes: 3 });
    expect(staffTimes.byDepartment.map((r) => r.label)).toContain("Secret Unit");
    const moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    const page = await moderator.get("/admin/stats");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<caption>How long things take, by department</caption>");
    expect(page.body).toMatch(/<th scope="row">Secret Unit<\/th><td data-label="Reports">1<\/td><td[^>]*>1 day<\/td>/);
  });
});

describeEachDb("how long things take in the demo village", (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  it("times the first response from staff's first answer, not from the making of the report", async () => {
    const times = (await t.app.inject("/stats.json")).json().times;
    expect(times.all.firstResponses).toBeGreaterThan(0);
    for (const row of [times.all, ...times.byCategory, ...times.byDepartment]) {
      if (row.firstResponses > 0) expect(row.medianDaysToFirstResponse, row.name).toBeGreaterThan(0);
    }
  });
});

describeEachDb("reporters' answers through the one path (report statistics)", (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, { now: () => NOW });
    await load(t.db.database.db);
  });
  afterAll(async () => t?.close());

  it("counts a reporter's 'Yes, fixed' recorded by recordReportEvent, and not a 'still a problem'", async () => {
    const db = t.db.database.db;
    const idOf = async (reference: string) =>
      (await db.selectFrom("reports").select("id").where("reference", "=", reference).executeTakeFirstOrThrow()).id;
    const reporter = { civic: null, now: NOW, by: "reporter" as const, accountId: null };
    await recordReportEvent(db, reporter, await idOf("TIMES-3"), { kind: "questionnaire", fixed: true, note: "" });
    await recordReportEvent(db, reporter, await idOf("TIMES-2"), { kind: "questionnaire", fixed: false, note: "" });
    const potholes = (await t.app.inject("/stats.json")).json().times.byCategory[0];
    expect(potholes).toMatchObject({
      category: "pothole",
      reports: 4,
      fixes: 3,
      fixedByReporter: 2,
      shareFixedByReporter: 0.5,
    });
  });
});
