import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../helpers/app.js";
import { form, multipart } from "../open311/support.js";
import { expectFamilyError } from "./family.js";

describeEachDb("control characters in any text input", (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "10000", RATE_LIMIT_WRITE_MAX: "10000" },
    });
    key = (await createApiKey(t.app.civic.database.db, "Fuzzy client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A 400 in the family's format that says what is wrong. */
  const expectFamily400 = (
    res: { statusCode: number; headers: Record<string, unknown>; body: string },
    url: string,
    method = "GET",
  ) => {
    expectFamilyError(res, url, 400, method);
    expect(res.body).toMatch(/control characters|broken %-encoding/);
  };

  it("refuses NUL, other C0 controls, DEL and lone surrogates in paths and query strings with a 400", async () => {
    const urls = [
      "/reports/%00",
      "/report?category=%00",
      "/reports?category=a%01b",
      "/projects/%00",
      "/api/v2/services/%00.json",
      "/api/v2/requests/%00.json",
      "/api/v2/requests/%00.xml",
      "/api/v2/tokens/%7F.json",
      "/api/v2/requests.json?service_code=%00",
      "/api/v2/requests.json?service_request_id=AB%00",
      "/api/v1/businesses?q=%00",
      "/api/v1/businesses/%00",
      "/api/v1/diff?since=%1B",
      "/businesses?q=%00",
      "/status?reference=%00",
      "/reports/%ED%A0%80",
    ];
    for (const url of urls) {
      const res = await t.app.inject({ method: "GET", url });
      expectFamily400(res, url);
    }
  });

  it("refuses them in Open311 POST bodies (form and multipart) before anything is stored", async () => {
    const base: [string, string][] = [
      ["api_key", key],
      ["service_code", "bus_shelter"],
      ["address_string", "Bus stop by the church"],
      ["description", "Timetable missing."],
    ];
    const bodies: [string, string][][] = [
      [...base, ["email", "a\u0000b@example.org"]],
      [...base, ["media_url", "https://example.org/a\u0000.jpg"]],
      [...base, ["first_name", "Al\u0007ex"]],
      [...base.filter(([k]) => k !== "description"), ["description", "Line one\u0000"]],
      [...base, ["attribute[x\u0000]", "y"]],
    ];
    const before = await t.app.civic.database.db
      .selectFrom("reports")
      .select((e) => e.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    for (const pairs of bodies) {
      const url = "/api/v2/requests.json";
      expectFamily400(await t.app.inject({ method: "POST", url, ...form(pairs) }), url, "POST");
      expectFamily400(await t.app.inject({ method: "POST", url, ...multipart(pairs) }), url, "POST");
    }
    const after = await t.app.civic.database.db
      .selectFrom("reports")
      .select((e) => e.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    // Tabs and line breaks are text: a multi-line description is accepted.
    const ok = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      ...form([...base.filter(([k]) => k !== "description"), ["description", "Line one\r\n\tLine two"]]),
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it("refuses them in the web report form with an HTML page", async () => {
    const token = await formToken(t.app, "/report?category=pothole");
    const body = form([
      ["_csrf", token],
      ["category", "pothole"],
      ["title", "Hole\u0000"],
      ["description", "Deep"],
    ]);
    const res = await t.app.inject({
      method: "POST",
      url: "/report",
      headers: { ...body.headers, origin: "http://civic.test" },
      payload: body.payload,
    });
    expectFamily400(res, "/report", "POST");
  });
});
