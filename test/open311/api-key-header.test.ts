import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { form } from "./support.js";

describeEachDb("Open311 API keys in headers and caches", (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_READ_MAX: "50" } });
    key = (await createApiKey(t.app.civic.database.db, "Header client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("anonymous reads stay public and vary on X-Api-Key", async () => {
    const res = await t.app.inject({ url: "/api/v2/requests.json", remoteAddress: "192.0.2.50" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=60");
    expect(String(res.headers.vary)).toMatch(/X-Api-Key/);
  });

  it("a read that carries a key, in the query or the header, is private and counted per key", async () => {
    const inQuery = await t.app.inject({ url: `/api/v2/requests.json?api_key=${key}`, remoteAddress: "192.0.2.51" });
    expect(inQuery.statusCode).toBe(200);
    expect(inQuery.headers["cache-control"]).toBe("private, max-age=60");
    const services = await t.app.inject({ url: `/api/v2/services.json?api_key=${key}`, remoteAddress: "192.0.2.51" });
    expect(services.headers["cache-control"]).toBe("private, no-cache");

    const inHeader = await t.app.inject({
      url: "/api/v2/requests.json",
      remoteAddress: "192.0.2.52",
      headers: { "x-api-key": key },
    });
    expect(inHeader.statusCode).toBe(200);
    expect(inHeader.headers["cache-control"]).toBe("private, max-age=60");
    // The key's allowance (shared by the three keyed reads), not the new address's.
    expect(inHeader.headers["ratelimit-remaining"]).toBe("47");
    // Even an unknown key marks the answer private: it is the client's own.
    const unknown = await t.app.inject({ url: "/api/v2/requests.json", headers: { "x-api-key": "civic_nope" } });
    expect(unknown.headers["cache-control"]).toBe("private, max-age=60");
  });

  it("POST accepts the key in the X-Api-Key header instead of the form field", async () => {
    const body = form([
      ["service_code", "bus_shelter"],
      ["address_string", "Bus stop by the church"],
      ["description", "Timetable missing."],
    ]);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      payload: body.payload,
      headers: { ...body.headers, "x-api-key": key },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const wrong = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      payload: body.payload,
      headers: { ...body.headers, "x-api-key": "civic_wrong" },
    });
    expect(wrong.statusCode).toBe(403);
  });

  it("CORS preflight allows the X-Api-Key header", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/api/v2/requests.json",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-api-key",
      },
    });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers["access-control-allow-headers"]).toLowerCase()).toContain("x-api-key");
  });
});
