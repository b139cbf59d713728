import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, form, multipart } from "../open311/support.js";

describeEachDb("Open311 POST: accepted content types, bounded and checked fields", (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "10000" } });
    key = (await createApiKey(t.app.civic.database.db, "Client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const base = (): [string, string][] => [
    ["api_key", key],
    ["service_code", "bus_shelter"],
    ["address_string", "Bus stop by the church"],
    ["description", "Timetable missing."],
  ];
  const url = "/api/v2/requests.json";
  const count = async () =>
    Number(
      (
        await t.app.civic.database.db
          .selectFrom("reports")
          .select((e) => e.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const errors = (res: { statusCode: number; body: string }, status: number) => {
    expect(res.statusCode, res.body).toBe(status);
    const list = JSON.parse(res.body) as { code: number; description: string }[];
    expectValid("errors", list);
    return list.map((e) => e.description).join(" | ");
  };

  it("accepts form-encoded and multipart bodies only; any other content type is a 415 in Open311 format", async () => {
    const before = await count();
    const asObject = Object.fromEntries(base());
    for (const [type, payload] of [
      ["application/json", JSON.stringify(asObject)],
      ["text/plain", new URLSearchParams(base()).toString()],
      ["application/xml", "<request/>"],
      ["application/json", "{broken"],
    ] as const) {
      const res = await t.app.inject({ method: "POST", url, headers: { "content-type": type }, payload });
      expect(errors(res, 415)).toMatch(/application\/x-www-form-urlencoded/);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
    }
    const xml = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.xml",
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    expect(xml.statusCode).toBe(415);
    expect(xml.body).toContain("<errors><error><code>415</code>");
    expect(await count()).toBe(before);
    expect((await t.app.inject({ method: "POST", url, ...form(base()) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "POST", url, ...multipart(base()) })).statusCode).toBe(200);
  });

  it("bounds every field the same way for form-encoded and multipart bodies", async () => {
    const before = await count();
    const tooLong: [string, string][] = [
      ["address_id", "x".repeat(201)],
      ["device_id", "d".repeat(201)],
      ["account_id", "a".repeat(201)],
      ["description", "w".repeat(4001)],
      ["email", `${"e".repeat(250)}@example.org`],
      ["media_url", `https://example.org/${"m".repeat(2000)}`],
      ["attribute[lamp_post_number]", "n".repeat(2001)],
    ];
    for (const [field, value] of tooLong) {
      const pairs = [...base().filter(([k]) => k !== field), [field, value] as [string, string]];
      for (const body of [form(pairs), multipart(pairs)]) {
        const res = await t.app.inject({ method: "POST", url, ...body });
        expect(errors(res, 400), field).toContain(field);
      }
    }
    expect(await count()).toBe(before);
  });

  it("refuses non-finite and out-of-range coordinates in either body type", async () => {
    for (const [lat, long] of [
      ["9".repeat(400), "0"],
      ["50.98", `-${"9".repeat(400)}`],
      ["91", "0"],
      ["0", "181"],
    ] as const) {
      const pairs: [string, string][] = [
        ...base().filter(([k]) => k !== "address_string"),
        ["lat", lat],
        ["long", long],
      ];
      for (const body of [form(pairs), multipart(pairs)]) {
        expect(errors(await t.app.inject({ method: "POST", url, ...body }), 400)).toMatch(/lat|long/);
      }
    }
  });

  it("publishes address_id only when it is a known gazetteer place id", async () => {
    const place = await t.app.civic.database.db.selectFrom("places").select("id").executeTakeFirstOrThrow();
    const typed = "Flat 2, 14 Mill Lane, call Jo on 07700 900123";
    const unknown = await t.app.inject({
      method: "POST",
      url,
      ...multipart([...base(), ["address_id", typed]]),
    });
    expect(unknown.statusCode, unknown.body).toBe(200);
    const known = await t.app.inject({ method: "POST", url, ...form([...base(), ["address_id", place.id]]) });
    expect(known.statusCode, known.body).toBe(200);
    const [u] = unknown.json() as { service_request_id: string }[];
    const [k] = known.json() as { service_request_id: string }[];
    const read = await t.app.inject({
      method: "GET",
      url: `/api/v2/requests.json?service_request_id=${u?.service_request_id},${k?.service_request_id}`,
    });
    const rows = read.json() as { service_request_id: string; address_id: string | null }[];
    expect(rows.find((r) => r.service_request_id === u?.service_request_id)?.address_id).toBeNull();
    expect(rows.find((r) => r.service_request_id === k?.service_request_id)?.address_id).toBe(place.id);
    expect(read.body).not.toContain("07700");
    const stored = await t.app.civic.database.db
      .selectFrom("reports")
      .select("address_id")
      .where("reference", "=", u?.service_request_id ?? "")
      .executeTakeFirstOrThrow();
    expect(stored.address_id).toBeNull();
  });

  it("documents the accepted content types, the 415 and the address_id rule in the OpenAPI description", async () => {
    const doc = t.app.swagger() as {
      paths: Record<string, Record<string, { description?: string; responses?: Record<string, unknown> }>>;
    };
    const post = doc.paths["/api/v2/requests.{format}"]?.post;
    expect(post?.responses?.["415"]).toBeDefined();
    expect(post?.responses?.["413"]).toBeDefined();
    expect(post?.description).toMatch(/415/);
    expect(post?.description).toMatch(/address_id/);
  });
});
