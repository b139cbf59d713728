import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { multipart } from "../open311/support.js";
import { expectFamilyError } from "./family.js";

describeEachDb("framework errors answer in the family's format", (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "10000", RATE_LIMIT_WRITE_MAX: "10000" },
    });
    key = (await createApiKey(t.app.civic.database.db, "Client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers broken %-encodings in the path with a 400 in the family's format", async () => {
    for (const url of [
      "/api/v1/businesses/%zz",
      "/api/v1/%FF%FE",
      "/data/%",
      "/api/v2/requests/%FF.json",
      "/api/v2/services/%zz.xml",
      "/%FF%FE",
      "/%",
      "/reports/%zz",
    ]) {
      expectFamilyError(await t.app.inject({ method: "GET", url }), url, 400);
    }
  });

  it("answers an over-long path parameter with a 414 in the family's format", async () => {
    const long = "a".repeat(300);
    for (const url of [`/api/v1/businesses/${long}`, `/api/v2/requests/${long}.json`, `/reports/${long}`]) {
      expectFamilyError(await t.app.inject({ method: "GET", url }), url, 414);
    }
  });

  it("counts a path parameter's length in code points, as the description's 200 characters count", async () => {
    // 😀 is one code point and two UTF-16 units: 200 of them are at the limit, 201 past it.
    const at = encodeURIComponent("😀".repeat(200));
    const past = encodeURIComponent("😀".repeat(201));
    for (const [url, status] of [
      [`/api/v1/businesses/${encodeURIComponent("😀".repeat(101))}`, 404],
      [`/api/v1/businesses/${at}`, 404],
      [`/api/v2/requests/${at}.json`, 404],
      [`/api/v2/services/${at}.xml`, 404],
      [`/api/v1/businesses/${past}`, 414],
      [`/api/v2/requests/${past}.json`, 414],
      [`/api/v2/services/${past}.xml`, 414],
      [`/reports/${past}`, 414],
      [`/api/v1/businesses/${"a".repeat(201)}`, 414],
    ] as const) {
      expectFamilyError(await t.app.inject({ method: "GET", url }), url, status);
    }
  });

  it("answers malformed and truncated multipart bodies with a 400, on the web form and on Open311", async () => {
    const good = multipart([
      ["api_key", key],
      ["service_code", "bus_shelter"],
      ["address_string", "Bus stop"],
      ["description", "Timetable missing."],
    ]);
    const boundary = /boundary=(.+)$/.exec(good.headers["content-type"] ?? "")?.[1] ?? "";
    const cases: { name: string; type: string; payload: Buffer }[] = [
      { name: "no boundary", type: "multipart/form-data", payload: good.payload },
      { name: "wrong boundary", type: "multipart/form-data; boundary=nothere", payload: good.payload },
      {
        name: "truncated",
        type: `multipart/form-data; boundary=${boundary}`,
        payload: good.payload.subarray(0, good.payload.length - 40),
      },
      {
        name: "cut inside the headers",
        type: `multipart/form-data; boundary=${boundary}`,
        payload: Buffer.from(`--${boundary}\r\nContent-Disposition: form-da`),
      },
    ];
    for (const url of ["/api/v2/requests.json", "/api/v2/requests.xml", "/report"]) {
      for (const c of cases) {
        const res = await t.app.inject({
          method: "POST",
          url,
          headers: { "content-type": c.type },
          payload: c.payload,
        });
        expectFamilyError(res, url, 400, "POST");
      }
    }
  });

  it("answers too many multipart fields with a 413", async () => {
    const fields: [string, string][] = [["api_key", key]];
    for (let i = 0; i < 150; i++) fields.push([`f${i}`, "x"]);
    for (const url of ["/api/v2/requests.json", "/report"]) {
      expectFamilyError(await t.app.inject({ method: "POST", url, ...multipart(fields) }), url, 413, "POST");
    }
  });

  it("answers a form body past the size limit with a 413 and an unknown method with the family's format", async () => {
    const url = "/api/v2/requests.json";
    const res = await t.app.inject({
      method: "POST",
      url,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `description=${"x".repeat(300 * 1024)}`,
    });
    expectFamilyError(res, url, 413, "POST");
    // A known path with a method it lacks: 405 with Allow (test/foundation/methods.test.ts walks every path).
    const wrong = await t.app.inject({ method: "DELETE", url: "/api/v1/businesses" });
    expectFamilyError(wrong, "/api/v1/businesses", 405, "DELETE");
    expect(wrong.headers.allow).toBe("GET, HEAD, OPTIONS");
  });
});

describeEachDb("errors before there is a request answer in the family's format", (dialect) => {
  let t: TestApp;
  let port = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends raw bytes and reads the whole answer (the server closes the connection after a client error). */
  const raw = (request: string) =>
    new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.end(request));
      const chunks: Buffer[] = [];
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("error", reject);
      socket.on("close", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const [head = "", body = ""] = text.split("\r\n\r\n");
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body });
      });
    });

  it("answers a URL past the header size limit with a 431 in the family's format", async () => {
    const long = "x".repeat(20_000);
    const api = await raw(`GET /api/v1/businesses?q=${long} HTTP/1.1\r\nHost: civic.test\r\n\r\n`);
    expect(api.status).toBe(431);
    expect(api.headers).toContain("content-type: application/problem+json; charset=utf-8");
    expect(api.headers).toContain("access-control-allow-origin: *");
    expect((JSON.parse(api.body) as { status: number }).status).toBe(431);
    const open311 = await raw(`GET /api/v2/requests.xml?q=${long} HTTP/1.1\r\nHost: civic.test\r\n\r\n`);
    expect(open311.status).toBe(431);
    expect(open311.body).toContain("<errors><error><code>431</code>");
    const page = await raw(`GET /reports?q=${long} HTTP/1.1\r\nHost: civic.test\r\n\r\n`);
    expect(page.status).toBe(431);
    expect(page.headers).toContain("content-type: text/html; charset=utf-8");
    expect(page.body).toMatch(/^<!doctype html>/);
  });
});
