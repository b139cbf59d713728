import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cellsCovering, MAX_CELLS } from "../../src/core/geo.js";
import { parseW3cDatetime } from "../../src/open311/query.js";
import { isIsoDatetime } from "../../src/reports/attributes.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";
import { expectFamilyError } from "./family.js";

describe("the near-here cell cover", () => {
  it("gives up (null) on non-finite or huge boxes instead of looping, whatever the caller checked", () => {
    expect(cellsCovering(0, Number.POSITIVE_INFINITY, 0, Number.POSITIVE_INFINITY)).toBeNull();
    expect(cellsCovering(Number.NEGATIVE_INFINITY, 0, Number.POSITIVE_INFINITY, 0)).toBeNull();
    expect(cellsCovering(Number.NaN, 0, 1, 1)).toBeNull();
    expect(cellsCovering(0, 0, 1e300, 1e300)).toBeNull();
    expect(cellsCovering(10, 10, 0, 0)).toBeNull();
    const cells = cellsCovering(50.98, -2.05, 50.99, -2.04);
    expect(cells?.length).toBeGreaterThan(0);
    expect(cells?.length).toBeLessThanOrEqual(MAX_CELLS);
  });
});

describe("years 0000-0099", () => {
  it("are read as written, never as 19xx", () => {
    expect(parseW3cDatetime("start_date", "0050-01-01", false).toISOString()).toBe("0050-01-01T00:00:00.000Z");
    expect(parseW3cDatetime("end_date", "0001-12-31", true).toISOString()).toBe("0001-12-31T23:59:59.999Z");
    // Year 0 is a leap year in the proleptic Gregorian calendar; 1900 is not.
    expect(isIsoDatetime("0000-02-29")).toBe(true);
    // But PostgreSQL has no year 0: dates for queries stay within 0001-9999.
    expect(() => parseW3cDatetime("start_date", "0000-02-29", false)).toThrow(/0001 to 9999/);
    expect(isIsoDatetime("0100-02-29")).toBe(false);
  });
});

describeEachDb("numbers from users are finite and bounded", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_READ_MAX: "10000" } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: "GET", url });

  it("answers non-finite coordinates, radius and pages on Open311 with a 400 error list, before any search", async () => {
    const hostile = ["Infinity", "-Infinity", "1e999", "-1e999", "NaN", "1e308"];
    for (const v of hostile) {
      for (const query of [
        `lat=0&long=${v}&radius=300`,
        `lat=${v}&long=0`,
        `lat=50.98&long=-2.04&radius=${v}`,
        `page=${v}`,
        `page_size=${v}`,
      ]) {
        const res = await get(`/api/v2/requests.json?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
        const errors = res.json() as { code: number; description: string }[];
        expect(errors[0]?.code).toBe(400);
        // Refused by the parameter's own check, before any search (not timed: the machine is shared): the error
        // names the parameter whose value was not a finite number.
        const name = [...new URLSearchParams(query)].find(([, value]) => value === v)?.[0] ?? "?";
        expect(errors.map((e) => e.description).join(" "), query).toContain(name);
      }
    }
    expect((await get("/healthz")).statusCode).toBe(200);
  });

  it("keeps the schema bounds for finite numbers", async () => {
    for (const query of ["lat=91&long=0", "lat=0&long=181", "lat=0&long=0&radius=20001", "lat=0&long=0&radius=0"]) {
      expect((await get(`/api/v2/requests.json?${query}`)).statusCode, query).toBe(400);
    }
    expect((await get("/api/v2/requests.json?lat=50.98&long=-2.04&radius=300")).statusCode).toBe(200);
  });

  it("refuses non-finite numbers on the web's nearby lookup and report list", async () => {
    for (const url of [
      "/report/nearby.json?category=pothole&lat=Infinity&lng=0",
      "/report/nearby.json?category=pothole&lat=0&lng=1e999",
      "/reports?page=1e999",
      "/reports?page=Infinity",
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
    }
  });

  it("reads dates in years 0000-0099 as written, and keeps every date within what both databases store", async () => {
    const res = await get("/api/v2/requests.json?start_date=0050-01-01&end_date=0050-03-01T00:00:00Z");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    for (const url of ["/api/v2/requests.json?end_date=0001-01-02", "/api/v2/requests.json?start_date=9999-12-30"]) {
      expect((await get(url)).statusCode, url).toBe(200);
    }
    expect((await get("/api/v2/requests.json?start_date=0000-02-29")).statusCode).toBe(400);
    expect((await get("/api/v1/diff?since=0001-01-01")).statusCode).toBe(200);
    const year0 = await get("/api/v1/diff?since=0000-02-29");
    expect(year0.statusCode, year0.body).toBe(400);
    expect(year0.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  });
});

describeEachDb("ids from users fit the columns they name (issue 27 #9)", (dialect) => {
  let t: TestApp;
  let resident: SignedIn;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_READ_MAX: "10000" } });
    resident = await signInAs(t.app, "resident@example.org", "resident");
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers an id path past the column's range, or not a whole number, with the page-not-found page", async () => {
    for (const url of [
      "/ideas/2147483648",
      "/ideas/999999999999999/photo.jpg",
      "/newsletter/archive/999999999999999",
      "/newsletter/archive/-1",
      "/ideas/1.5",
      "/ideas/abc",
      "/councillors/9223372036854775808",
      "/report-this/idea/99999999999",
    ]) {
      expectFamilyError(await t.app.inject({ method: "GET", url }), url, 404);
    }
  });

  it("reads the id inside an unsubscribe link with the same parser: a link past the range is refused, not a 500", async () => {
    const secret = "a".repeat(43);
    for (const url of [
      `/newsletter/unsubscribe/99999999999.${secret}`,
      `/reports/updates/unsubscribe/f99999999999.${secret}`,
      `/reports/updates/unsubscribe/r99999999999.${secret}`,
    ]) {
      for (const method of ["GET", "POST"] as const) {
        const res = await t.app.inject({ method, url, headers: { origin: t.config.baseUrl } });
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
        expect(res.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      }
    }
  });

  it("answers a signed-in post with an id path past the range with 404, and an id field past it with 400", async () => {
    const support = await resident.post("/ideas/99999999999/support");
    expectFamilyError(support, "/ideas/99999999999/support", 404, "POST");
    for (const [url, fields] of [
      ["/account/sessions/end", { id: "99999999999" }],
      ["/account/sessions/end", { id: "1e3" }],
      ["/account/consents/withdraw", { consent: "newsletter:abc" }],
      ["/account/consents/withdraw", { consent: "newsletter:99999999999" }],
      ["/account/consents/withdraw", { consent: "volunteering:-1" }],
      ["/account/consents/withdraw", { consent: "reportFollowing:1.5" }],
    ] as const) {
      expectFamilyError(await resident.post(url, fields), url, 400, "POST");
    }
  });
});
