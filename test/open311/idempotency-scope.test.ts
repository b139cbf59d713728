import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/**
 * Issue 33, finding 7: an Idempotency-Key is looked at only after the API key is checked, and each API key has its
 * own key space. Without a key (or with a bad one) the answer is the usual 403, never a stored answer and never a
 * 422 that tells which keys exist; another client that sends the same key and body gets its own report.
 */
describeEachDb("Open311 Idempotency-Key after authentication, per API key", (dialect) => {
  let t: TestApp;
  let clientA: string;
  let clientB: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "100" } });
    const db = t.app.civic.database.db;
    clientA = (await createApiKey(db, "Client A", new Date())).key;
    clientB = (await createApiKey(db, "Client B", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const fields = (description: string) =>
    new URLSearchParams({
      service_code: "pothole",
      lat: "50.9865",
      long: "-2.044",
      description,
      "attribute[road_or_pavement]": "road",
    }).toString();
  const post = (body: string, key: string, apiKey?: string) =>
    t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": key,
        ...(apiKey ? { "x-api-key": apiKey } : {}),
      },
      payload: body,
    });
  const reference = (res: { json: () => unknown }) =>
    (res.json() as { service_request_id: string }[])[0]?.service_request_id;
  const count = async () =>
    Number(
      (
        await t.app.civic.database.db
          .selectFrom("reports")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("without a key or with a bad one a used Idempotency-Key gets the 403, not the stored answer or a 422", async () => {
    const body = fields("Pothole by the church gate.");
    const first = await post(body, '"scope-used-1"', clientA);
    expect(first.statusCode, first.body).toBe(200);
    for (const apiKey of [undefined, "civic_not_a_key"]) {
      const same = await post(body, '"scope-used-1"', apiKey);
      expect(same.statusCode).toBe(403);
      expect(same.body).not.toContain(reference(first) as string);
      const other = await post(fields("Something else entirely."), '"scope-used-1"', apiKey);
      expect(other.statusCode).toBe(403);
    }
  });

  it("another client with the same key and body gets its own report; another body is not a 422", async () => {
    const body = fields("Pothole outside the bakery.");
    const a = await post(body, '"scope-shared-1"', clientA);
    expect(a.statusCode, a.body).toBe(200);
    const before = await count();
    const b = await post(body, '"scope-shared-1"', clientB);
    expect(b.statusCode, b.body).toBe(200);
    expect(reference(b)).not.toBe(reference(a));
    expect(await count()).toBe(before + 1);
    // B's own retry is B's answer; A's retry is still A's.
    expect((await post(body, '"scope-shared-1"', clientB)).body).toBe(b.body);
    expect((await post(body, '"scope-shared-1"', clientA)).body).toBe(a.body);

    const c = await post(body, '"scope-shared-2"', clientA);
    expect(c.statusCode).toBe(200);
    const different = await post(fields("A different pothole, by the school."), '"scope-shared-2"', clientB);
    expect(different.statusCode, different.body).toBe(200);
    expect(reference(different)).not.toBe(reference(c));
  });
});
