import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { signInAs } from "../../test/helpers/staff.js";
import { analyticsRollupJob } from "../analytics/rollup.js";
import { proposeIdea } from "../ideas/service.js";
import { submitReport } from "../reports/submit.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

/** The cells of the table row headed `label` in the table that follows the figure caption `title`. */
function rowCells(html: string, title: string, label: string): string[] {
  const from = html.indexOf(`>${title}</figcaption>`);
  expect(from, title).toBeGreaterThan(0);
  const table = html.slice(from, html.indexOf("</table>", from));
  const row = new RegExp(`<th scope="row">${label}</th>((?:<td>[^<]*</td>)+)`).exec(table);
  return row ? [...(row[1] ?? "").matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1] ?? "") : [];
}

describeEachDb("staff statistics page", (dialect) => {
  let t: TestApp;
  let clock = new Date("2026-11-20T10:00:00.000Z");

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now: () => clock });
  }, 120_000);
  afterAll(async () => t?.close());

  const visit = (url: string, userAgent: string, referer?: string) =>
    t.app.inject({ url, headers: { "user-agent": userAgent, ...(referer ? { referer } : {}) } });

  it("is for staff only", async () => {
    const anonymous = await t.app.inject("/admin/stats");
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe("/sign-in?next=%2Fadmin%2Fstats");
    const resident = await signInAs(t.app, "resident@example.org", "resident");
    expect((await resident.get("/admin/stats")).statusCode).toBe(403);
    const staff = await signInAs(t.app, "moderator@example.org", "moderator");
    expect((await staff.get("/admin/stats?days=1000")).statusCode).toBe(400);
  });

  it("shows page views and unique visitors per day, never added across days, and what the visits came from", async () => {
    // The 20th: one browser, three pages, from a search engine; a phone, one page.
    await visit("/", FIREFOX, "https://www.google.co.uk/");
    await visit("/reports", FIREFOX);
    await visit("/about", FIREFOX);
    await visit("/", IPHONE);
    await t.app.analytics.flush();
    // The 21st: the same browser again; the 20th is rolled up into a count.
    clock = new Date("2026-11-21T09:00:00.000Z");
    await visit("/reports", FIREFOX);
    await t.app.analytics.flush();
    await analyticsRollupJob(t.db.database.db).run({ now: clock, signal: new AbortController().signal });

    const staff = await signInAs(t.app, "admin@example.org", "admin");
    const res = await staff.get("/admin/stats?days=7");
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(rowCells(html, "Page views per day", "20 Nov")).toEqual(["4", "2"]);
    expect(rowCells(html, "Page views per day", "21 Nov")).toEqual(["1", "1"]);
    expect(rowCells(html, "Page views per day", "15 Nov")).toEqual(["0", "0"]);
    expect(rowCells(html, "Unique visitors per day", "20 Nov")).toEqual(["2"]);
    expect(html).toMatch(/<dt>Page views, last 7 days<\/dt><dd>5<\/dd>/);
    expect(html).toMatch(/<dt>Unique visitors today<\/dt><dd>1<\/dd>/);
    // Visitors are never summed: no figure of 3 visitors (2 + 1) anywhere.
    expect(html).not.toMatch(/visitors[^<]*<\/dt><dd>3</i);
    expect(rowCells(html, "Top pages", "/reports")).toEqual(["2"]);
    expect(rowCells(html, "Referring sites", "google.co.uk")).toEqual(["1"]);
    expect(rowCells(html, "Devices", "desktop")).toEqual(["4"]);
    expect(rowCells(html, "Devices", "mobile")).toEqual(["1"]);
    // The staff page itself was not counted.
    expect(html).not.toContain('<th scope="row">/admin/stats</th>');
    // The platform's own figures.
    expect(html).toContain("Reports per week");
    expect(html).toContain("Median time to fixed or closed");
    expect(html.match(/<figure class="chart"/g)?.length).toBeGreaterThanOrEqual(9);
  });

  it("counts reports (hidden ones too), ideas, confirmed volunteer sign-ups and confirmed subscribers", async () => {
    const staff = await signInAs(t.app, "admin@example.org", "admin");
    const resident = await signInAs(t.app, "proposer@example.org", "resident");
    const civic = t.app.civic;
    const db = t.db.database.db;
    const number = (html: string, pattern: RegExp, what: string) => {
      const found = pattern.exec(html)?.[1];
      if (found === undefined) throw new Error(`no figure for ${what} on /admin/stats`);
      return Number(found.replaceAll(",", ""));
    };
    const row = (label: string) => new RegExp(`<th scope="row">${label}</th><td>([\\d,]+)</td>`);
    const figures = async () => {
      const html = (await staff.get("/admin/stats")).body;
      return {
        reports: number(html, /<dt>Reports<\/dt><dd>([\d,]+)<\/dd>/, "reports"),
        ideas: number(html, row("Ideas"), "ideas"),
        volunteers: number(html, row("Volunteer sign-ups \\(confirmed\\)"), "volunteers"),
        subscribers: number(html, row("Newsletter subscribers \\(confirmed\\)"), "subscribers"),
      };
    };
    const before = await figures();

    // Three reports, one of them then hidden by a moderator: all three count here (not on the public /stats).
    const references: string[] = [];
    for (let i = 0; i < 3; i++) references.push((await submitReport(civic, reportSubmission())).reference);
    const hidden = await staff.post(
      "/admin/moderation/decide",
      { kind: "report", id: references[0] ?? "", action: "hide", reason: "Statistics test" },
      "/admin/moderation",
    );
    expect(hidden.statusCode, hidden.body.slice(0, 300)).toBe(303);
    // Two ideas from an account (open at once) and one by address only, not yet confirmed: two count.
    const idea = { title: "A bench by the pond", description: "Somewhere to sit.", category: "", place: "" };
    await proposeIdea(civic, { ...idea, locationText: "", email: "" }, resident.accountId, undefined);
    await proposeIdea(civic, { ...idea, locationText: "", email: "" }, resident.accountId, undefined);
    await proposeIdea(civic, { ...idea, locationText: "", email: "unconfirmed@example.org" }, null, undefined);
    // Volunteer sign-ups and subscribers in every state: only the confirmed ones count.
    const at = clock.toISOString();
    for (const [i, status] of (["confirmed", "confirmed", "unconfirmed", "withdrawn"] as const).entries()) {
      await db
        .insertInto("volunteers")
        .values({
          project_id: null,
          role: null,
          name: `Volunteer ${i}`,
          email: `volunteer-${i}@example.org`,
          phone: null,
          interests: "",
          availability: "",
          consent_text: "Test",
          status,
          token_hash: `stats-test-volunteer-${i}`,
          account_id: null,
          created_at: at,
          confirmed_at: status === "unconfirmed" ? null : at,
          withdrawn_at: status === "withdrawn" ? at : null,
        })
        .execute();
    }
    for (const [i, status] of (["confirmed", "confirmed", "unconfirmed", "unsubscribed"] as const).entries()) {
      await db
        .insertInto("newsletter_subscribers")
        .values({
          email: `subscriber-${i}@example.org`,
          status,
          unsubscribe_salt: `stats-test-salt-${i}`,
          consent_text: "Test",
          created_at: at,
          confirmed_at: status === "unconfirmed" ? null : at,
          unsubscribed_at: status === "unsubscribed" ? at : null,
        })
        .execute();
    }

    const after = await figures();
    expect({
      reports: after.reports - before.reports,
      ideas: after.ideas - before.ideas,
      volunteers: after.volunteers - before.volunteers,
      subscribers: after.subscribers - before.subscribers,
    }).toEqual({ reports: 3, ideas: 2, volunteers: 2, subscribers: 2 });
  });
});
