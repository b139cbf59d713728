import { afterAll, beforeAll, expect, it } from "vitest";
import { parseCsv } from "../../src/businesses/csv.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 33 #8: a cell of a CSV export that a spreadsheet would read as a formula is written with a leading `'`
 * (OWASP "CSV injection"): one that starts, after any leading spaces, with = + - @ or their full-width forms, or with
 * a tab or a carriage return. Everything else is written as it came.
 */
const DANGEROUS = [
  "=1+1",
  " =1+1",
  "  @SUM(A1)",
  "\uff1d1+1",
  " \uff1d1+1",
  "\uff0bcmd",
  "\uff0dcmd",
  "\uff20SUM(A1)",
  "+44 1234",
  "-2",
  "@home",
  "\t=1+1",
  "\r=1+1",
  "\u3000=1+1",
];
const HARMLESS = ["Weekends", "a=b", "Ann Lee", "1+1"];

describeEachDb("CSV exports and spreadsheet formulas", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const db = t.app.civic.database.db;
    const now = t.app.civic.now().toISOString();
    for (const [i, value] of [...DANGEROUS, ...HARMLESS].entries()) {
      await db
        .insertInto("volunteers")
        .values({
          project_id: null,
          role: null,
          name: `Volunteer ${i}`,
          email: `v${i}@example.org`,
          phone: null,
          interests: value,
          availability: "Weekends",
          consent_text: "I agree.",
          status: "confirmed",
          token_hash: `csv-test-${i}`,
          account_id: null,
          created_at: now,
          confirmed_at: now,
          withdrawn_at: null,
        })
        .execute();
    }
  });
  afterAll(async () => t?.close());

  it("the volunteers export guards every formula-like cell and leaves the rest as it was", async () => {
    const admin = await signInAs(t.app, "admin@example.org", "admin");
    const res = await admin.get("/admin/volunteers.csv");
    expect(res.statusCode).toBe(200);
    const records = parseCsv(res.body).map((r) => r.fields);
    const column = records[0]!.indexOf("interests");
    const byName = new Map(records.slice(1).map((f) => [f[records[0]!.indexOf("name")], f[column]]));
    for (const [i, value] of DANGEROUS.entries())
      expect(byName.get(`Volunteer ${i}`), JSON.stringify(value)).toBe(`'${value}`);
    for (const [i, value] of HARMLESS.entries()) {
      expect(byName.get(`Volunteer ${DANGEROUS.length + i}`), JSON.stringify(value)).toBe(value);
    }
  });
});
