import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { distanceMetres } from "./repository.js";
import { submitReport } from "./submit.js";

/** The report references of a /reports page, in the order listed. */
function listed(body: string): string[] {
  const list = /<ol class="report-list">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? "";
  return [...list.matchAll(/href="\/reports\/([^"]+)"/g)].map((m) => m[1] as string);
}

describeEachDb("reports near a street or landmark (/reports?near=)", (dialect) => {
  let t: TestApp;
  let church: { name: string; latitude: number; longitude: number };
  /** Public demo reports within 300 m of Church Lane, nearest first. */
  let expected: { reference: string; status: string; distance: number }[];

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const db = t.db.database.db;
    church = await db
      .selectFrom("places")
      .select(["name", "latitude", "longitude"])
      .where("id", "=", "church-lane")
      .executeTakeFirstOrThrow();
    const rows = await db
      .selectFrom("reports")
      .select(["reference", "status", "latitude", "longitude", "visibility"])
      .execute();
    expected = rows
      .filter((r) => r.visibility === "public" && r.latitude !== null && r.longitude !== null)
      .map((r) => ({
        reference: r.reference,
        status: r.status,
        distance: distanceMetres(church.latitude, church.longitude, r.latitude ?? 0, r.longitude ?? 0),
      }))
      .filter((r) => r.distance <= 300)
      .sort((a, b) => a.distance - b.distance);
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: "GET", url });

  it("lists the public reports around a gazetteer place, nearest first, and no others", async () => {
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(expected.length).toBeLessThan((await t.db.database.db.selectFrom("reports").select("id").execute()).length);
    const res = await get("/reports?near=Church+Lane");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("<h1>Reports near Church Lane</h1>");
    expect(res.body).toContain("within 300 metres of Church Lane, nearest first");
    expect(listed(res.body)).toEqual(expected.map((r) => r.reference));
    expect(res.body).toMatch(/\d+ m away/);
  });

  it("finds the place whatever its case and spacing, or by its id", async () => {
    const names = ["church%20lane", "%20CHURCH%20%20LANE%20", "church-lane"];
    for (const name of names) {
      const res = await get(`/reports?near=${name}`);
      expect(res.statusCode, name).toBe(200);
      expect(listed(res.body), name).toEqual(expected.map((r) => r.reference));
    }
  });

  it("keeps the list's filters", async () => {
    const status = expected[0]?.status ?? "open";
    const res = await get(`/reports?near=Church+Lane&status=${status}`);
    expect(listed(res.body)).toEqual(expected.filter((r) => r.status === status).map((r) => r.reference));
  });

  it("pages through them, the place kept in the links", async () => {
    const civic = t.app.civic;
    // 21 more reports a few metres apart, 100 to 120 m north of the lane: the second page starts with the furthest.
    for (let i = 0; i < 21; i++) {
      await submitReport(
        civic,
        reportSubmission({
          title: `Pothole ${i} north of Church Lane`,
          lat: church.latitude + (100 + i) / 111_320,
          lng: church.longitude,
        }),
      );
    }
    const first = await get("/reports?near=Church+Lane");
    const next = /href="([^"]*)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBe("/reports?near=Church+Lane&page=2");
    const second = await get(next ?? "");
    expect(second.statusCode).toBe(200);
    const all = [...listed(first.body), ...listed(second.body)];
    expect(listed(first.body)).toHaveLength(20);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(expected.length + 21);
    expect(second.body).toContain("Page 2 of 2");
  });

  it("never lists a hidden report", async () => {
    const db = t.db.database.db;
    const nearest = expected[0]?.reference ?? "";
    await db.updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", nearest).execute();
    try {
      const res = await get("/reports?near=Church+Lane");
      expect(listed(res.body)).not.toContain(nearest);
      expect(listed(res.body).length).toBeGreaterThan(0);
    } finally {
      await db.updateTable("reports").set({ visibility: "public" }).where("reference", "=", nearest).execute();
    }
  });

  it("says so for a name it does not know, with the closest names, and lists every report", async () => {
    const res = await get("/reports?near=Chruch+Lane");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("We could not find a street or landmark called “Chruch Lane”");
    expect(res.body).toContain('<a href="/reports?near=Church%20Lane">Church Lane</a>');
    expect(res.body).toContain("<h1>Reports</h1>");
    const typo = await get("/reports?near=chruch");
    expect(typo.body).toContain('<a href="/reports?near=Church%20Lane">Church Lane</a>');
    expect(typo.body).toContain("<a href=\"/reports?near=St%20Mary's%20Church\">St Mary's Church</a>");
    const nothing = await get("/reports?near=Zzzzzz");
    expect(nothing.statusCode).toBe(200);
    expect(nothing.body).toContain("We could not find a street or landmark called “Zzzzzz”");
    const script = await get(`/reports?near=${encodeURIComponent("<script>alert(1)</script>")}`);
    expect(script.statusCode).toBe(200);
    expect(script.body).not.toContain("<script>alert(1)");
  });

  it("refuses hostile values plainly: control characters and overlong names are a 400, never a 5xx", async () => {
    for (const url of ["/reports?near=%00", "/reports?near=Church%01Lane", "/reports?near=%7F"]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.body, url).toMatch(/control characters/);
    }
    const long = await get(`/reports?near=${"a".repeat(10_000)}`);
    expect(long.statusCode).toBe(400);
    expect(long.headers["content-type"]).toMatch(/text\/html/);
    const many = await get(`/reports?near=a&near=b`);
    expect(many.statusCode).toBeLessThan(500);
  });
});
