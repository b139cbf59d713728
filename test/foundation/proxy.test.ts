import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { form } from "../open311/support.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/**
 * Behind one reverse proxy (TRUST_PROXY=1), the client is the address the proxy appended last to X-Forwarded-For:
 * whatever a client writes in front of it is ignored, so rotating the header does not escape a per-address limit.
 */
describeEachDb("behind a reverse proxy", (dialect) => {
  let t: TestApp;
  const proxy = "127.0.0.1";
  /** A request as the proxy forwards it: the client's forged list, then the client's real address. */
  const forwarded = (i: number, client = "203.0.113.7") => ({
    remoteAddress: proxy,
    headers: { "x-forwarded-for": `10.${i % 250}.${i % 7}.1, 198.18.0.${i % 250}, ${client}` },
  });

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: {
        TRUST_PROXY: "1",
        RATE_LIMIT_READ_MAX: "3",
        RATE_LIMIT_WRITE_MAX: "2",
        RATE_LIMIT_WINDOW_SECONDS: "60",
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("Open311 reads: a rotated X-Forwarded-For shares the real client's allowance", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ url: "/api/v2/services.json", ...forwarded(i) });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Another real client behind the same proxy has its own allowance.
    expect((await t.app.inject({ url: "/api/v2/services.json", ...forwarded(9, "203.0.113.8") })).statusCode).toBe(200);
  });

  it("Open311 POST: rotating X-Forwarded-For does not give a key-guesser new attempts", async () => {
    const key = (await createApiKey(t.app.civic.database.db, "Proxy test", new Date())).key;
    expect(key).toMatch(/^civic_/);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/v2/requests.json",
        ...forwarded(i, "203.0.113.20"),
        ...form([
          ["api_key", `civic_guess${i}`],
          ["service_code", "bus_shelter"],
          ["address_string", "By the church"],
          ["description", "Timetable missing."],
        ]),
        headers: { ...forwarded(i, "203.0.113.20").headers, ...form([]).headers },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([403, 403, 429, 429]);
  });

  it("the report form: a rotated X-Forwarded-For does not escape the form limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/report",
        ...forwarded(i, "203.0.113.30"),
        headers: {
          ...forwarded(i, "203.0.113.30").headers,
          "content-type": "application/x-www-form-urlencoded",
          origin: "http://civic.test",
        },
        payload: new URLSearchParams({ category: "pothole", title: "Pothole" }).toString(),
      });
      statuses.push(res.statusCode);
    }
    // The first two are answered (the form re-rendered with its errors), then the address is limited.
    expect(statuses.slice(0, 2).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(2)).toEqual([429, 429]);
  });
});

describeEachDb("TRUST_PROXY as a list of proxy addresses", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      env: { TRUST_PROXY: "127.0.0.1, 10.0.0.0/8" },
      routes: (app) => app.get("/test-client-address", async (request) => ({ ip: request.ip })),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const clientAddress = async (remoteAddress: string, xff: string) =>
    (await t.app.inject({ url: "/test-client-address", remoteAddress, headers: { "x-forwarded-for": xff } })).json<{
      ip: string;
    }>().ip;

  it("believes only the entries its listed proxies added", async () => {
    // Through the local proxy, via an internal load balancer: the client is the first address not of a proxy.
    expect(await clientAddress("127.0.0.1", "6.6.6.6, 203.0.113.7, 10.1.2.3")).toBe("203.0.113.7");
    // A client connecting directly cannot choose its address.
    expect(await clientAddress("198.51.100.5", "203.0.113.99")).toBe("198.51.100.5");
  });
});
