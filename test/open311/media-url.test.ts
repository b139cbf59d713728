import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, form, insertReport } from "./support.js";

/**
 * Issue 33, finding 8: Open311 `media_url` is a link to media hosted elsewhere, published and mailed to the council
 * as a link and never fetched. Only an absolute http(s) URL of a public host name, without credentials, of bounded
 * length, and not on this site is taken; anything else is a 400 naming media_url. It is stored normalised (an
 * international host name in its ASCII form) and shown only as a plain link marked as user content.
 */
describeEachDb("Open311 media_url", (dialect) => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "1000" } });
    apiKey = (await createApiKey(t.app.civic.database.db, "Client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (mediaUrl: string) =>
    t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      ...form([
        ["api_key", apiKey],
        ["service_code", "pothole"],
        ["lat", "50.9865"],
        ["long", "-2.044"],
        ["description", "Pothole with a photo elsewhere."],
        ["attribute[road_or_pavement]", "road"],
        ["media_url", mediaUrl],
      ]),
    });

  it("refuses URLs that are not a plain link to media on a public host elsewhere", async () => {
    const refused = [
      "javascript:alert(1)",
      "data:image/png;base64,iVBORw0KGgo=",
      "ftp://files.example.org/lamp.jpg",
      "//images.example.org/lamp.jpg",
      "/photos/lamp.jpg",
      "https://user:secret@images.example.org/lamp.jpg",
      "https://images.example.org@evil.example.net/lamp.jpg",
      "http://localhost/lamp.jpg",
      "http://printer.localhost:8080/lamp.jpg",
      "http://127.0.0.1/lamp.jpg",
      "http://10.0.0.7/lamp.jpg",
      "http://[::1]/lamp.jpg",
      "http://0x7f000001/lamp.jpg",
      "http://intranet/lamp.jpg",
      "http://civic.test/admin/reports",
      "HTTP://CIVIC.TEST:80/my-data",
      "https://images.example.org/lamp one.jpg",
      "https://images.example.org/\u202Egpj.exe",
      `https://images.example.org/${"m".repeat(2000)}`,
    ];
    for (const url of refused) {
      const res = await post(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      const errors = res.json() as { code: number; description: string }[];
      expectValid("errors", errors);
      expect(errors.map((e) => e.description).join(" "), url).toContain("media_url");
    }
  });

  it("keeps a link to media elsewhere, normalised, and mails it to the council as a plain user-content link", async () => {
    const res = await post("https://Bücher.example/lamp.jpg?size=large");
    expect(res.statusCode, res.body).toBe(200);
    const reference = (res.json() as { service_request_id: string }[])[0]?.service_request_id as string;
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${reference}.json` });
    expect((read.json() as { media_url: string }[])[0]?.media_url).toBe(
      "https://xn--bcher-kva.example/lamp.jpg?size=large",
    );
    const mail = await t.app.civic.database.db
      .selectFrom("outbox")
      .select("html_body")
      .where("kind", "=", "report-forward")
      .where("text_body", "like", `%${reference}%`)
      .executeTakeFirstOrThrow();
    expect(mail.html_body).toContain(
      '<a href="https://xn--bcher-kva.example/lamp.jpg?size=large" rel="nofollow noopener noreferrer ugc">',
    );
    expect((await post("http://images.example.org/lamp.jpg")).statusCode).toBe(200);
  });

  it("leaves out a link stored before the rule that the rule refuses", async () => {
    const reference = "MEDI-A001";
    await insertReport(t.app, { reference, media_url: "http://admin:secret@192.168.1.1/cam.jpg", source: "open311" });
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${reference}.json` });
    expect(read.statusCode).toBe(200);
    expect((read.json() as { media_url: string | null }[])[0]?.media_url).toBeNull();
    expect(read.body).not.toContain("secret");
  });
});
