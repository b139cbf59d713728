import { afterAll, beforeAll, expect, it } from "vitest";
import { flagItem } from "../../src/moderation/flags.js";
import { accountSeer, clientSeer, markSeen } from "../../src/reports/seen.js";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

const DAY = 24 * 60 * 60_000;

/** The staff inbox (issue 36): each report's age, place in words, flags and "seen too"; sorted by age or interest; a map. */
describeEachDb("the staff inbox in context", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let old: string;
  let middle: string;
  let fresh: string;
  const db = () => h.app.civic.database.db;
  const idOf = async (reference: string) =>
    (await db().selectFrom("reports").select("id").where("reference", "=", reference).executeTakeFirstOrThrow()).id;
  /** The references of the inbox's rows, in order. */
  const order = (body: string) =>
    [...body.matchAll(/<td data-label="Reference"><a href="\/admin\/reports\/([A-Z0-9-]+)"/g)].map((m) => m[1]!);

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    // The seed's reports are left out of the orderings below by a filter on their day.
    h.advance(400 * DAY);
    old = (await makeReport(h.app, { email: null })).reference;
    h.advance(5 * DAY);
    middle = (await makeReport(h.app, { email: null })).reference;
    h.advance(7 * DAY);
    fresh = (await makeReport(h.app, { email: null })).reference;
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    const civic = h.app.civic;
    const mid = await idOf(middle);
    await markSeen(civic, mid, clientSeer(civic, mid, "192.0.2.1", civic.now()));
    await markSeen(civic, mid, clientSeer(civic, mid, "192.0.2.2", civic.now()));
    await markSeen(civic, mid, accountSeer(moderator.accountId));
    const young = await idOf(fresh);
    await markSeen(civic, young, clientSeer(civic, young, "192.0.2.3", civic.now()));
    for (const ip of ["198.51.100.1", "198.51.100.2"]) {
      await flagItem(civic, { kind: "report", id: old, reason: "spam", note: "", viewer: null, clientIp: ip });
    }
  });
  afterAll(async () => h?.close());

  /** The inbox row of one report (its table row's HTML). */
  function rowOf(body: string, reference: string): string {
    const start = body.indexOf(`<a href="/admin/reports/${reference}"`);
    expect(start).toBeGreaterThan(0);
    return body.slice(start, body.indexOf("</tr>", start));
  }

  it("shows each report's age, place in words, open flags and seen-too count", async () => {
    const res = await moderator.get("/admin/reports");
    expect(res.statusCode).toBe(200);
    expect(rowOf(res.body, old)).toContain("open 12 days");
    expect(rowOf(res.body, middle)).toContain("open 7 days");
    expect(rowOf(res.body, fresh)).toContain("open less than a day");
    // makeReport's point is by the war memorial in the seed's gazetteer.
    expect(rowOf(res.body, old)).toMatch(/data-label="Place" class="free-text">[^<]*(War memorial|from)/i);
    expect(rowOf(res.body, old)).toMatch(/data-label="Flags">2</);
    expect(rowOf(res.body, middle)).toMatch(/data-label="Flags">0</);
    expect(rowOf(res.body, middle)).toMatch(/data-label="Seen too">3</);
    expect(rowOf(res.body, fresh)).toMatch(/data-label="Seen too">1</);
    expect(rowOf(res.body, old)).toMatch(/data-label="Seen too">0</);
  });

  it("sorts by interest by default within the unreviewed, by age, and by seen too", async () => {
    const from = new Date(Date.now() + 390 * DAY).toISOString().slice(0, 10);
    const byDefault = order((await moderator.get(`/admin/reports?from=${from}`)).body);
    expect(byDefault).toEqual([middle, fresh, old]);
    const byAge = order((await moderator.get(`/admin/reports?from=${from}&sort=oldest`)).body);
    expect(byAge).toEqual([old, middle, fresh]);
    const bySeen = order((await moderator.get(`/admin/reports?from=${from}&sort=seen`)).body);
    expect(bySeen).toEqual([middle, fresh, old]);
    const newest = order((await moderator.get(`/admin/reports?from=${from}&sort=newest`)).body);
    expect(newest).toEqual([fresh, middle, old]);
    const bad = await moderator.get(`/admin/reports?sort=%00drop`);
    expect(bad.statusCode).toBe(400);
  });

  it("maps the filtered inbox for staff: the page has the map, its data has what staff can see", async () => {
    const from = new Date(Date.now() + 390 * DAY).toISOString().slice(0, 10);
    const page = await moderator.get(`/admin/reports?from=${from}&sort=seen`);
    expect(page.body).toContain('class="map report-view-map reports-map-canvas"');
    const mapUrl = /data-map-url="([^"]+)"/.exec(page.body)?.[1]?.replaceAll("&amp;", "&");
    expect(mapUrl).toBe(`/admin/reports/map.json?from=${from}`);
    // A hidden report is on the staff map.
    const admin = `/admin/reports/${old}`;
    const hidden = await moderator.post(
      `${admin}/moderate`,
      { target: "report", moderation_action: "hide", moderation_reason: "Checking it" },
      admin,
    );
    expect(hidden.statusCode).toBe(303);
    const data = await moderator.get(`${mapUrl}&bbox=-2.2,50.9,-1.9,51.1&zoom=16`);
    expect(data.statusCode).toBe(200);
    const answer = data.json() as { total: number; points: [string, number, number, string, string][] };
    expect(answer.total).toBe(3);
    expect(answer.points.map((p) => p[0]).sort()).toEqual([old, middle, fresh].sort());
    // Staff only: the public and residents get nothing.
    const anonymous = await h.app.inject({ method: "GET", url: `${mapUrl}&bbox=-2.2,50.9,-1.9,51.1&zoom=16` });
    expect([302, 303, 401, 403, 404]).toContain(anonymous.statusCode);
    const badBox = await moderator.get(`${mapUrl}&bbox=nonsense&zoom=16`);
    expect(badBox.statusCode).toBe(400);
  });
});
