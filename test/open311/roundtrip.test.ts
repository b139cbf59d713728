import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, getBoth, multipart } from "./support.js";

interface Attribute {
  code: string;
  variable: boolean;
  required: boolean;
  datatype: string;
  values?: { key: string; name: string }[];
}

/**
 * A client that knows only the standard: it starts from the discovery document and follows what it says, as a
 * third-party Open311 app would.
 */
describeEachDb("Open311 client round trip", (dialect) => {
  let t: TestApp;
  let key: string;
  const path = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    key = (await createApiKey(t.app.civic.database.db, "Round-trip client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("discovers, lists services, reads a definition, posts with attributes and a photo, and reads it back", async () => {
    // 1. Discovery, in both formats.
    const discovery = (await getBoth(t.app, "/api/v2/discovery.{format}", "discovery")).json as {
      endpoints: { url: string; specification: string; formats: string[] }[];
    };
    const endpoint = discovery.endpoints.find((e) => e.specification === "http://wiki.open311.org/GeoReport_v2");
    expect(endpoint?.formats).toContain("application/json");
    const base = path(endpoint?.url as string);

    // 2. Services: pick the street light service, which asks questions.
    const services = (await getBoth(t.app, `${base}/services.{format}`, "services")).json as {
      service_code: string;
      service_name: string;
      metadata: boolean;
    }[];
    expectValid("services", services);
    const service = services.find((s) => s.service_name === "Street light");
    expect(service?.metadata).toBe(true);

    // 3. Its definition; answer every variable question from the definition alone.
    const definition = (
      await getBoth(t.app, `${base}/services/${service?.service_code}.{format}`, "service_definition")
    ).json as { attributes: Attribute[] };
    expectValid("service-definition", definition);
    const answers: [string, string][] = [];
    for (const a of definition.attributes.filter((x) => x.variable)) {
      if (a.datatype === "singlevaluelist") answers.push([`attribute[${a.code}]`, a.values?.[1]?.key as string]);
      else if (a.datatype === "multivaluelist") answers.push([`attribute[${a.code}][]`, a.values?.[0]?.key as string]);
      else if (a.datatype === "number") answers.push([`attribute[${a.code}]`, "3"]);
      else if (a.datatype === "datetime") answers.push([`attribute[${a.code}]`, "2026-11-20T18:00:00Z"]);
      else answers.push([`attribute[${a.code}]`, "WSM 22"]);
    }
    expect(answers.map(([k]) => k)).toContain("attribute[fault]");

    // 4. POST with a real JPEG as multipart `media`.
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#446688" } })
      .jpeg()
      .toBuffer();
    const description = "Street light flickering by the war memorial.\nIt has been like this for three nights.";
    const created = await t.app.inject({
      method: "POST",
      url: `${base}/requests.json`,
      ...multipart(
        [
          ["api_key", key],
          ["service_code", service?.service_code as string],
          ["lat", "50.9871"],
          ["long", "-2.0442"],
          ["address_string", "War memorial, Wrenford St Mary"],
          ["description", description],
          ["email", "roundtrip@example.org"],
          ...answers,
        ],
        [{ name: "media", filename: "lamp.jpg", type: "image/jpeg", data: photo }],
      ),
    });
    expect(created.statusCode, created.body).toBe(200);
    const [answer] = created.json() as { service_request_id: string; service_notice: string }[];
    expectValid("created-requests", created.json());
    const id = answer?.service_request_id as string;

    // 5. Read it back, one and in the list, in both formats.
    const one = (await getBoth(t.app, `${base}/requests/${id}.{format}`, "service_requests")).json as {
      service_request_id: string;
      status: string;
      service_code: string;
      description: string;
      address: string;
      lat: number;
      long: number;
      media_url: string;
    }[];
    expectValid("requests", one);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({
      service_request_id: id,
      status: "open",
      service_code: "streetlight",
      description,
      address: "War memorial, Wrenford St Mary",
      lat: 50.9871,
      long: -2.0442,
    });
    const listed = (await getBoth(t.app, `${base}/requests.{format}?service_code=streetlight`, "service_requests"))
      .json as { service_request_id: string }[];
    expect(listed[0]?.service_request_id).toBe(id);
    expect(JSON.stringify(listed)).not.toContain("roundtrip@example.org");

    // 6. The photo is served at the absolute media_url.
    const image = await t.app.inject({ method: "GET", url: path(one[0]?.media_url as string) });
    expect(image.statusCode).toBe(200);
    expect(image.headers["content-type"]).toContain("image/jpeg");
    expect((await sharp(image.rawPayload).metadata()).format).toBe("jpeg");

    // 7. The report's public web page.
    const page = await t.app.inject({ method: "GET", url: `/reports/${id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(id);
    expect(page.body).toContain("Street light flickering by the war memorial");
    expect(page.body).not.toContain("roundtrip@example.org");
  });
});
