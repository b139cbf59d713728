import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import {
  type ClientKnowledge,
  type ContractCase,
  invalidCases,
  learnFromApi,
  mismatches,
  type OpenApiDocument,
  type Operation,
  operations,
  send,
  servedDescription,
  validCase,
} from "./contract-model.js";

/** Fixed, so a failure is reproducible; bench/contract runs other seeds and many more cases. */
const SEED = Number(process.env.CONTRACT_SEED ?? 20261128);
/** Cases per operation, valid and invalid each. */
const RUNS = Number(process.env.CONTRACT_RUNS ?? 40);

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
    const db = t.app.civic.database.db;
    const apiKey = (await createApiKey(db, "Contract tester", new Date())).key;
    const places = await db.selectFrom("places").select("id").execute();
    const categories = await db.selectFrom("businesses").select("category").distinct().execute();
    knowledge = await learnFromApi(t.app, {
      apiKey,
      origin: t.config.baseUrl,
      known: {
        address_id: places.map((p) => p.id),
        place: places.map((p) => p.id),
        "GET /api/v1/businesses category": categories.map((c) => c.category).filter((c): c is string => !!c),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends every case of an arbitrary (fixed seed, no shrinking needed to read the list) and lists mismatches. */
  async function check(o: Operation, arbitrary: fc.Arbitrary<ContractCase>, seed: number): Promise<string[]> {
    const found = new Map<string, string>();
    for (const c of fc.sample(arbitrary, { seed, numRuns: RUNS })) {
      for (const res of await send(t.app, c)) {
        for (const m of mismatches(doc, o, c, res)) {
          if (process.env.CONTRACT_DEBUG && !found.has(m)) console.log(m, c.payload?.toString().slice(0, 2000));
          if (!found.has(m)) found.set(m, `${c.method} ${c.url.slice(0, 200)} → ${m}`);
        }
      }
    }
    return [...found.values()];
  }

  it("covers every operation of the description", () => {
    const ids = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(ids).toContain("GET /api/v1/businesses/{id}");
    expect(ids).toContain("POST /api/v2/requests.{format}");
    expect(ids.length).toBeGreaterThanOrEqual(12);
  });

  it("answers valid requests drawn from the description as documented, never refusing one as invalid", async () => {
    const problems: string[] = [];
    for (const [i, o] of operations(doc).entries()) {
      problems.push(...(await check(o, validCase(doc, o, knowledge), SEED + i)));
    }
    expect(problems).toEqual([]);
  });

  it("answers requests that break one constraint of the description with a documented 4xx", async () => {
    const problems: string[] = [];
    for (const [i, o] of operations(doc).entries()) {
      const invalid = invalidCases(doc, o, knowledge);
      if (invalid) problems.push(...(await check(o, invalid, SEED + 1000 + i)));
    }
    expect(problems).toEqual([]);
  });
});
