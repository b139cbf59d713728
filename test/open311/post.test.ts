import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { photoKey } from "../../src/core/media/images.js";
import { mediaStorage } from "../../src/core/media/storage.js";
import { hasGpsTag, jpegWithGps } from "../helpers/images.js";
import { createApiKey, revokeApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, form, multipart, parseXml, sparkFromXml } from "./support.js";

interface Created {
  service_request_id: string;
  service_notice: string | null;
  account_id: string | null;
}

describeEachDb("Open311 POST requests", (dialect) => {
  let t: TestApp;
  let key: string;
  let revoked: string;

  const post = (pairs: [string, string][], format = "json") =>
    t.app.inject({ method: "POST", url: `/api/v2/requests.${format}`, ...form(pairs) });
  const valid = (): [string, string][] => [
    ["api_key", key],
    ["service_code", "streetlight"],
    ["lat", "50.9862"],
    ["long", "-2.0437"],
    ["description", "The lamp outside the shop flickers all night.\nIt started last week."],
    ["attribute[fault]", "flickering"],
    ["attribute[lamp_post_number]", "WSM 14"],
  ];
  const errorsOf = (res: { statusCode: number; json: () => unknown }, status: number) => {
    expect(res.statusCode).toBe(status);
    const errors = res.json() as { code: number; description: string }[];
    expectValid("errors", errors);
    return errors.map((e) => e.description);
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "1000" } });
    const db = t.app.civic.database.db;
    key = (await createApiKey(db, "Test client", new Date())).key;
    const old = await createApiKey(db, "Old client", new Date());
    await revokeApiKey(db, old.id, new Date());
    revoked = old.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("refuses a POST without a key, with a wrong key and with a revoked key (403, Open311 errors)", async () => {
    const without = valid().filter(([k]) => k !== "api_key");
    expect(errorsOf(await post(without), 403)[0]).toContain("api_key was not provided");
    expect(errorsOf(await post([["api_key", "civic_nope"], ...without]), 403)[0]).toContain("Invalid api_key");
    expect(errorsOf(await post([["api_key", revoked], ...without]), 403)[0]).toContain("Invalid api_key");
    const xml = await post(without, "xml");
    expect(xml.statusCode).toBe(403);
    expect(xml.headers["content-type"]).toBe("text/xml; charset=utf-8");
    expect(sparkFromXml(parseXml(xml.body))).toEqual([
      { code: "403", description: "api_key was not provided: submitting a request needs an API key." },
    ]);
    // A missing key is a 403 even when the rest of the request is wrong too.
    expect((await post([["lat", "not a number"]])).statusCode).toBe(403);
  });

  it("creates a report from a form-encoded POST and sends the confirmation email", async () => {
    const res = await post([
      ...valid(),
      ["email", "Resident@Example.org"],
      ["first_name", "Alex"],
      ["last_name", "Reporter"],
      ["phone", "07700 900456"],
      ["device_id", "dev-1"],
      ["account_id", "acc-7"],
      ["jurisdiction_id", "wrenford.example.org"],
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const body = res.json() as Created[];
    expectValid("created-requests", body);
    expect(body).toHaveLength(1);
    const created = body[0] as Created;
    expect(created.service_request_id).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(created.service_notice).toContain("Volunteers");
    expect(created.account_id).toBe("acc-7");

    const db = t.app.civic.database.db;
    const report = await db
      .selectFrom("reports")
      .selectAll()
      .where("reference", "=", created.service_request_id)
      .executeTakeFirstOrThrow();
    expect(report.source).toBe("open311");
    expect(report.reporter_email).toBe("resident@example.org");
    expect(report.reporter_name).toBe("Alex Reporter");
    expect(JSON.parse(report.attributes)).toEqual({ fault: "flickering", lamp_post_number: "WSM 14" });
    expect(report.api_key_id).not.toBeNull();
    const mail = await db
      .selectFrom("outbox")
      .select(["kind", "to_address", "text_body"])
      .where("kind", "=", "report-confirmation")
      .where("to_address", "=", "resident@example.org")
      .executeTakeFirst();
    expect(mail?.text_body).toContain(created.service_request_id);
    const used = await db
      .selectFrom("api_keys")
      .select("last_used_at")
      .where("id", "=", report.api_key_id as number)
      .executeTakeFirst();
    expect(used?.last_used_at).not.toBeNull();

    // Read back: the reporter's details are not in it.
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${created.service_request_id}.json` });
    const [r] = read.json() as { description: string; status: string; service_code: string; lat: number }[];
    expect(r?.status).toBe("open");
    expect(r?.service_code).toBe("streetlight");
    expect(r?.lat).toBe(50.9862);
    expect(r?.description).toBe("The lamp outside the shop flickers all night.\nIt started last week.");
    for (const secret of ["resident@", "Alex", "Reporter", "900456", "dev-1", "acc-7"])
      expect(read.body).not.toContain(secret);
  });

  it("also takes the api_key from the query string", async () => {
    const pairs = valid().filter(([k]) => k !== "api_key");
    const res = await t.app.inject({ method: "POST", url: `/api/v2/requests.json?api_key=${key}`, ...form(pairs) });
    expect(res.statusCode, res.body).toBe(200);
    const wrong = await t.app.inject({ method: "POST", url: "/api/v2/requests.json?api_key=civic_x", ...form(pairs) });
    expect(wrong.statusCode).toBe(403);
  });

  it("answers in XML with the standard's root element", async () => {
    const res = await post(valid(), "xml");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("text/xml; charset=utf-8");
    const tree = parseXml(res.body);
    expect(tree.name).toBe("service_requests");
    const [created] = sparkFromXml(tree) as { service_request_id: string; account_id: string }[];
    expect(created?.service_request_id).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(created?.account_id).toBe("");
  });

  it("accepts multivaluelist answers as attribute[code][] and an address_string or gazetteer address_id", async () => {
    const res = await post([
      ["api_key", key],
      ["service_code", "fly_tipping"],
      ["address_string", "Lay-by on the Wrenvale road, Wrenford St Mary"],
      ["description", "Sofa and tyres dumped."],
      ["attribute[waste_types][]", "furniture"],
      ["attribute[waste_types][]", "tyres"],
      ["attribute[amount]", "car_boot"],
      ["attribute[first_noticed]", "2026-11-20T08:30:00Z"],
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const [created] = res.json() as Created[];
    const row = await t.app.civic.database.db
      .selectFrom("reports")
      .select(["attributes", "latitude", "location_text"])
      .where("reference", "=", created?.service_request_id as string)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.attributes).waste_types).toEqual(["furniture", "tyres"]);
    expect(row.latitude).toBeNull();
    expect(row.location_text).toContain("Lay-by");

    const place = await t.app.civic.database.db
      .selectFrom("places")
      .select(["id", "latitude"])
      .executeTakeFirstOrThrow();
    const byPlace = await post([
      ["api_key", key],
      ["service_code", "bus_shelter"],
      ["address_id", place.id],
      ["description", "Glass panel smashed."],
    ]);
    expect(byPlace.statusCode, byPlace.body).toBe(200);
    const [viaPlace] = byPlace.json() as Created[];
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${viaPlace?.service_request_id}.json` });
    const [r] = read.json() as { address_id: string; lat: number }[];
    expect(r?.address_id).toBe(place.id);
    expect(r?.lat).toBe(place.latitude);
    expect(
      errorsOf(
        await post([
          ["api_key", key],
          ["service_code", "bus_shelter"],
          ["address_id", "nowhere"],
          ["description", "x"],
        ]),
        400,
      )[0],
    ).toContain("address_id");
  });

  it("answers 404 for an unknown service_code and 400 when it is missing", async () => {
    const unknown = valid().map(([k, v]): [string, string] => (k === "service_code" ? [k, "spaceship"] : [k, v]));
    expect(errorsOf(await post(unknown), 404)[0]).toContain("spaceship");
    const missing = valid().filter(([k]) => k !== "service_code");
    expect(errorsOf(await post(missing), 400)[0]).toContain("service_code");
  });

  it("validates attributes against the service definition, naming attribute[code]", async () => {
    const base = valid().filter(([k]) => !k.startsWith("attribute"));
    expect(errorsOf(await post(base), 400).join("\n")).toContain("attribute[fault]: is required");
    expect(
      errorsOf(await post([...base, ["attribute[fault]", "out"], ["attribute[lamp_post_number]", "WSM\n14"]]), 400),
    ).toEqual(["attribute[lamp_post_number]: must be one line of text (datatype string)"]);
    expect(errorsOf(await post([...base, ["attribute[fault]", "exploded"]]), 400).join("\n")).toContain(
      "attribute[fault]: is not one of the listed answers",
    );
    expect(
      errorsOf(await post([...base, ["attribute[fault]", "out"], ["attribute[colour]", "red"]]), 400).join("\n"),
    ).toContain("attribute[colour]");
    const pothole: [string, string][] = [
      ["api_key", key],
      ["service_code", "pothole"],
      ["lat", "50.9862"],
      ["long", "-2.0437"],
      ["description", "Deep hole."],
      ["attribute[road_or_pavement]", "road"],
    ];
    expect(errorsOf(await post([...pothole, ["attribute[width_cm]", "wide"]]), 400).join("\n")).toContain(
      "attribute[width_cm]",
    );
    const tipping: [string, string][] = [
      ["api_key", key],
      ["service_code", "fly_tipping"],
      ["lat", "50.9862"],
      ["long", "-2.0437"],
      ["description", "Rubbish."],
      ["attribute[waste_types][]", "tyres"],
      ["attribute[amount]", "car_boot"],
    ];
    expect(errorsOf(await post([...tipping, ["attribute[first_noticed]", "last Tuesday"]]), 400).join("\n")).toContain(
      "attribute[first_noticed]",
    );
    expect(errorsOf(await post([...tipping, ["attribute[waste_types][]", "uranium"]]), 400).join("\n")).toContain(
      "attribute[waste_types]",
    );
  });

  it("checks the description (required, at most 4,000 characters, no HTML) and the location", async () => {
    const without = (name: string) => valid().filter(([k]) => k !== name);
    expect(errorsOf(await post([...without("description"), ["description", "x".repeat(4001)]]), 400).join()).toMatch(
      /^description: .*4000 characters/,
    );
    expect(
      errorsOf(await post([...without("description"), ["description", "<b>bold</b> claim"]]), 400).join(),
    ).toContain("description: must be plain text");
    expect(errorsOf(await post(without("description")), 400).join()).toContain("description");
    expect((await post([...without("description"), ["description", "y".repeat(4000)]])).statusCode).toBe(200);

    const noPlace = valid().filter(([k]) => k !== "lat" && k !== "long");
    expect(errorsOf(await post(noPlace), 400).join()).toContain("address_string");
    expect(errorsOf(await post([...noPlace, ["lat", "51.5"], ["long", "-0.12"]]), 400).join()).toContain(
      "lat/long: The place must be within Wrenford St Mary",
    );
    expect(errorsOf(await post([...noPlace, ["lat", "50.9862"]]), 400).join()).toMatch(/lat|long/);
    expect(errorsOf(await post([...noPlace, ["lat", "north"], ["long", "-2.04"]]), 400).join()).toContain(
      "lat: must be a decimal number",
    );
    expect(errorsOf(await post([...valid(), ["media_url", "javascript:alert(1)"]]), 400).join()).toContain("media_url");
  });

  it("accepts photos as multipart media (v2.1 draft) and publishes an absolute media_url", async () => {
    const jpeg = await jpegWithGps(640, 480);
    const body = multipart(valid(), [{ name: "media", filename: "lamp.jpg", type: "image/jpeg", data: jpeg }]);
    const res = await t.app.inject({ method: "POST", url: "/api/v2/requests.json", ...body });
    expect(res.statusCode, res.body).toBe(200);
    const [created] = res.json() as Created[];
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${created?.service_request_id}.json` });
    const [r] = read.json() as { media_url: string }[];
    expect(r?.media_url).toMatch(/^http:\/\/civic\.test\/photos\/[0-9a-f]{64}\.jpg$/);
    // The photo was cleaned and stored under its hash (served by the reports feature's /photos route).
    const hash = /([0-9a-f]{64})\.jpg$/.exec(r?.media_url ?? "")?.[1] as string;
    const stored = await mediaStorage(t.config).get(photoKey(hash, "full"));
    expect(stored?.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(hasGpsTag((await sharp(jpeg).metadata()).exif)).toBe(true);
    expect(hasGpsTag((await sharp(stored as Buffer).metadata()).exif)).toBe(false);

    const notImage = multipart(valid(), [
      { name: "media", filename: "x.jpg", type: "image/jpeg", data: Buffer.from("nope") },
    ]);
    const bad = await t.app.inject({ method: "POST", url: "/api/v2/requests.json", ...notImage });
    expect(errorsOf(bad, 400).join()).toContain("media:");
    const noKey = multipart(valid().filter(([k]) => k !== "api_key"));
    expect((await t.app.inject({ method: "POST", url: "/api/v2/requests.xml", ...noKey })).statusCode).toBe(403);
  });

  it("keeps an external media_url when no photo is uploaded", async () => {
    const res = await post([...valid(), ["media_url", "https://images.example.org/lamp.jpg"]]);
    const [created] = res.json() as Created[];
    const read = await t.app.inject({ method: "GET", url: `/api/v2/requests/${created?.service_request_id}.json` });
    expect((read.json() as { media_url: string }[])[0]?.media_url).toBe("https://images.example.org/lamp.jpg");
  });
});
