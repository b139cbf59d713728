import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import {
  type ClientKnowledge,
  clientKnowledge,
  type OpenApiDocument,
  operations,
  runContract,
  servedDescription,
} from "./contract-model.js";

/** Fixed, so a failure is reproducible; bench/contract runs other seeds and many more cases. */
const SEED = Number(process.env.CONTRACT_SEED ?? 20261128);
/** Cases per operation, valid and invalid each. */
const RUNS = Number(process.env.CONTRACT_RUNS ?? 30);

describeEachDb("the OpenAPI description as a contract", (dialect) => {
  let t: TestApp;
  let doc: OpenApiDocument;
  let knowledge: ClientKnowledge;

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "1000000", RATE_LIMIT_WRITE_MAX: "1000000" },
    });
    doc = await servedDescription(t.app);
    knowledge = await clientKnowledge(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Every distinct mismatch a run finds, with its first example. */
  async function problems(kind: "valid" | "invalid"): Promise<string[]> {
    const report = await runContract(t.app, doc, knowledge, { seed: SEED, runs: RUNS, kinds: [kind] });
    expect(report.cases).toBeGreaterThan(operations(doc).length * RUNS * 0.5);
    return [...report.mismatches].map(([key, m]) => `${key}\n    e.g. ${m.example}`);
  }

  it("covers every operation of the description", () => {
    const ids = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(ids).toContain("GET /api/v1/businesses/{id}");
    expect(ids).toContain("POST /api/v2/requests.{format}");
    expect(ids.length).toBeGreaterThanOrEqual(12);
  });

  it("agrees with the server where an outside tester found they differed", async () => {
    const op = (method: string, path: string) => {
      const found = operations(doc).find((o) => o.method === method && o.path === path);
      if (!found) throw new Error(`${method} ${path} is not described`);
      return found.op;
    };
    const param = (method: string, path: string, name: string) =>
      op(method, path).parameters?.find((p) => p.name === name);
    // /api/v1/diff answers 400 without since: since is required.
    expect((await t.app.inject("/api/v1/diff")).statusCode).toBe(400);
    expect(param("GET", "/api/v1/diff", "since")?.required).toBe(true);
    // Open311 POST: service_code and description are required, and a location (one of three).
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
      const body = op("POST", "/api/v2/requests.{format}").requestBody?.content[type]?.schema;
      expect(body?.required).toEqual(expect.arrayContaining(["service_code", "description"]));
      expect(body?.anyOf).toHaveLength(3);
    }
    // Control characters and broken Unicode are refused (400) in text: every text parameter's pattern says so.
    const refused = await t.app.inject("/api/v1/businesses/a%01b");
    expect(refused.statusCode).toBe(400);
    expect(op("GET", "/api/v1/businesses/{id}").responses["400"]).toBeDefined();
    const pattern = new RegExp(
      param("GET", "/api/v2/discovery.{format}", "jurisdiction_id")?.schema.pattern ?? "",
      "u",
    );
    expect(pattern.test("a\u0001b")).toBe(false);
    expect(pattern.test("a\ud800b")).toBe(false);
    expect(pattern.test("Wrenford St Mary 🦆")).toBe(true);
    // Statuses sent before any route: 414 for a long path parameter, 431 for a long request line, 400 for a long
    // jurisdiction_id on discovery.
    expect((await t.app.inject(`/api/v1/businesses/${"a".repeat(201)}`)).statusCode).toBe(414);
    expect(op("GET", "/api/v1/businesses/{id}").responses["414"]).toBeDefined();
    expect(op("GET", "/api/v2/requests.{format}").responses["431"]).toBeDefined();
    expect((await t.app.inject(`/api/v2/discovery.json?jurisdiction_id=${"x".repeat(201)}`)).statusCode).toBe(400);
    expect(op("GET", "/api/v2/discovery.{format}").responses["400"]).toBeDefined();
  });

  it("answers valid requests drawn from the description as documented, never refusing one as invalid", async () => {
    expect(await problems("valid")).toEqual([]);
  }, 120_000);

  it("answers requests that break one constraint of the description with a documented 4xx", async () => {
    expect(await problems("invalid")).toEqual([]);
  }, 120_000);
});
