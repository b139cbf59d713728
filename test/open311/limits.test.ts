import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, form, parseXml, sparkFromXml } from "./support.js";

describeEachDb("Open311 rate limits", (dialect) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "3", RATE_LIMIT_WRITE_MAX: "2", RATE_LIMIT_WINDOW_SECONDS: "60" },
    });
    key = (await createApiKey(t.app.civic.database.db, "Limited client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, remoteAddress = "192.0.2.1") => t.app.inject({ method: "GET", url, remoteAddress });

  it("limits reads per client address across the whole API, with RateLimit headers and a 429 Open311 error", async () => {
    const urls = ["/api/v2/discovery.json", "/api/v2/services.json", "/api/v2/requests.xml"];
    for (const [i, url] of urls.entries()) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["ratelimit-limit"]).toBe("3");
      expect(res.headers["ratelimit-remaining"]).toBe(String(2 - i));
      expect(Number(res.headers["ratelimit-reset"])).toBeGreaterThan(0);
    }
    const json = await get("/api/v2/services.json");
    expect(json.statusCode).toBe(429);
    expect(Number(json.headers["retry-after"])).toBeGreaterThan(0);
    expect(json.headers["ratelimit-remaining"]).toBe("0");
    expect(json.headers["access-control-allow-origin"]).toBe("*");
    expect(json.headers["access-control-expose-headers"]).toContain("Retry-After");
    const errors = json.json() as { code: number }[];
    expectValid("errors", errors);
    expect(errors[0]?.code).toBe(429);
    const xml = await get("/api/v2/requests.xml");
    expect(xml.statusCode).toBe(429);
    expect(xml.headers["content-type"]).toBe("text/xml; charset=utf-8");
    expect((sparkFromXml(parseXml(xml.body)) as { code: string }[])[0]?.code).toBe("429");

    // Another address, and a valid key from the same address, have their own allowance.
    expect((await get("/api/v2/services.json", "192.0.2.2")).statusCode).toBe(200);
    const withKey = await get(`/api/v2/services.json?api_key=${key}`);
    expect(withKey.statusCode).toBe(200);
    expect(withKey.headers["ratelimit-remaining"]).toBe("2");
  });

  it("limits writes per key, and failed key attempts per address", async () => {
    const post = (pairs: [string, string][], remoteAddress: string) =>
      t.app.inject({ method: "POST", url: "/api/v2/requests.json", remoteAddress, ...form(pairs) });
    const report: [string, string][] = [
      ["service_code", "bus_shelter"],
      ["address_string", "Bus stop by the church"],
      ["description", "Timetable missing."],
    ];
    expect((await post([["api_key", key], ...report], "198.51.100.1")).statusCode).toBe(200);
    // The same key from another address shares the key's allowance.
    expect((await post([["api_key", key], ...report], "198.51.100.2")).statusCode).toBe(200);
    const limited = await post([["api_key", key], ...report], "198.51.100.3");
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();

    // Guessing keys: 403, 403, then 429 for that address.
    expect((await post([["api_key", "civic_guess1"], ...report], "198.51.100.9")).statusCode).toBe(403);
    expect((await post([["api_key", "civic_guess2"], ...report], "198.51.100.9")).statusCode).toBe(403);
    expect((await post([["api_key", "civic_guess3"], ...report], "198.51.100.9")).statusCode).toBe(429);
  });
});
