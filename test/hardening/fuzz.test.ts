import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import {
  caseFor,
  checkCase,
  FORM_PAGES,
  type FuzzCase,
  formTargets,
  openApiTargets,
  registeredTargets,
  type Target,
} from "./fuzz-model.js";

/** Fixed, so a failure here is reproducible; bench/fuzz runs other seeds and many more cases. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

describeEachDb("fuzzing every route and form with hostile input", (dialect) => {
  let t: TestApp;
  let offset = 0;
  let arbitrary: fc.Arbitrary<FuzzCase>;
  let targets: Target[];

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "100000", RATE_LIMIT_WRITE_MAX: "100000" },
      now: () => new Date(Date.now() + offset),
    });
    const apiKey = (await createApiKey(t.app.civic.database.db, "Fuzzer", new Date())).key;
    targets = [...openApiTargets(t.app), ...registeredTargets(t.app), ...(await formTargets(t.app, FORM_PAGES))];
    // Writes are where most checks are: each form and POST operation weighs as much as ten pages.
    const weighted = targets.flatMap((x) => (x.method === "POST" ? Array<Target>(10).fill(x) : [x]));
    arbitrary = fc.constantFrom(...weighted).chain((target) => caseFor(target, { apiKey, origin: t.config.baseUrl }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it("finds the API operations, the pages and the forms to fuzz", () => {
    const has = (method: string, path: string) => targets.some((x) => x.method === method && x.path === path);
    expect(has("POST", "/api/v2/requests.{format}")).toBe(true);
    expect(has("GET", "/api/v1/businesses/{id}")).toBe(true);
    expect(has("GET", "/reports/:reference")).toBe(true);
    expect(targets.some((x) => x.method === "POST" && x.path === "/report" && x.body.includes("description"))).toBe(
      true,
    );
  });

  it(
    `answers ${RUNS} random hostile requests without a 5xx, in the family's format, and stays responsive`,
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (c) => {
          const { problems, summary } = await checkCase(t.app, c, () => {
            offset += MIN_FILL_MS + 1000;
          });
          expect(problems, summary).toEqual([]);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    },
    30_000 + RUNS * 50,
  );
});
