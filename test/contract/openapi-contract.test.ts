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

  it("answers valid requests drawn from the description as documented, never refusing one as invalid", async () => {
    expect(await problems("valid")).toEqual([]);
  }, 120_000);

  it("answers requests that break one constraint of the description with a documented 4xx", async () => {
    expect(await problems("invalid")).toEqual([]);
  }, 120_000);
});
