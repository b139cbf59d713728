import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { multipart } from "../open311/support.js";

/**
 * Issue 27 #6: the drafts endpoint takes no form token, so it must take posts only from this site's pages: a post
 * from another site, or one that says nothing of where it comes from (curl), is refused with a 403 in the endpoint's
 * JSON format and creates nothing (and mails nothing).
 */
describeEachDb("the drafts endpoint takes posts from this site only", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  const post = (headers: Record<string, string>, key: string) => {
    const body = multipart([
      ["category", "pothole"],
      ["title", "Pothole"],
      ["description", "Deep hole on the corner."],
      ["lat", "50.98650"],
      ["lng", "-2.04400"],
      ["attribute[road_or_pavement]", "road"],
      ["email", "someone@example.org"],
      ["website", ""],
    ]);
    return t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { ...body.headers, "idempotency-key": `"${key}"`, ...headers },
      payload: body.payload,
    });
  };
  const outbox = async () => (await t.app.civic.database.db.selectFrom("outbox").select("id").execute()).length;

  it("refuses originless and cross-site posts with 403 problem JSON, accepts this site's", async () => {
    const before = await outbox();
    for (const [headers, key] of [
      [{}, "curl"],
      [{ "sec-fetch-site": "cross-site" }, "cross"],
      [{ origin: "https://evil.example" }, "evil"],
      [{ origin: "null" }, "null"],
      [{ "sec-fetch-site": "none" }, "typed"],
    ] as const) {
      const res = await post(headers, key);
      expect(res.statusCode, key).toBe(403);
      expect(res.headers["content-type"]).toContain("application/problem+json");
    }
    expect(await outbox()).toBe(before);
    expect((await post({ origin: "http://civic.test" }, "page")).statusCode).toBe(201);
    expect((await post({ "sec-fetch-site": "same-origin" }, "worker")).statusCode).toBe(201);
  });
});
