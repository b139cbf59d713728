import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { geoCell, geoCellSql } from "../../src/core/geo.js";
import { createApiKey } from "../../src/open311/keys.js";
import { parseRequestsQuery } from "../../src/open311/query.js";
import { requestsQuery } from "../../src/open311/requests.js";
import { ServiceRequest } from "../../src/open311/schemas.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { expectValid, getBoth, insertReport, parseXml, sparkFromXml } from "./support.js";

const DAY = 24 * 60 * 60 * 1000;

interface Req {
  service_request_id: string;
  status: string;
  status_notes: string | null;
  service_code: string;
  service_name: string | null;
  requested_datetime: string;
  description: string | null;
  media_url: string | null;
  lat: number | null;
  long: number | null;
}

describeEachDb("Open311 GeoReport v2 reads", (dialect) => {
  let t: TestApp;
  const get = (url: string) => t.app.inject({ method: "GET", url });
  const list = async (url: string): Promise<Req[]> => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Req[];
    expectValid("requests", body);
    return body;
  };
  const ago = (days: number) => new Date(t.app.civic.now().getTime() - days * DAY).toISOString();

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const db = t.app.civic.database.db;
    // Reports that exercise the rules: hidden and removed ones, one with private details, old ones, a photo.
    await insertReport(t.app, { reference: "HIDE-0001", visibility: "hidden", created_at: ago(0.5) });
    await insertReport(t.app, { reference: "GONE-0001", visibility: "removed", created_at: ago(0.5) });
    const priv = await insertReport(t.app, {
      reference: "PRIV-0001",
      title: "Private details test",
      description: "Nothing private in here.",
      reporter_email: "secret.reporter@example.org",
      reporter_name: "Secretname Reporter",
      reporter_phone: "07700 900123",
      device_id: "device-SECRET-42",
      account_id: "account-SECRET-99",
      status: "fixed",
      created_at: ago(0.2),
      updated_at: ago(0.1),
    });
    await db
      .insertInto("report_updates")
      .values([
        { report_id: priv.id, status: "open", previous_status: null, note: "", created_at: ago(0.2) },
        {
          report_id: priv.id,
          status: "fixed",
          previous_status: "open",
          note: "Filled by the council.",
          created_at: ago(0.1),
        },
      ])
      .execute();
    await db
      .insertInto("report_photos")
      .values({
        report_id: priv.id,
        position: 0,
        hash: "a".repeat(64),
        width: 10,
        height: 10,
        content_type: "image/jpeg",
        created_at: ago(0.2),
      })
      .execute();
    await insertReport(t.app, { reference: "OLD1-0001", created_at: ago(120), updated_at: ago(120) });
    await insertReport(t.app, { reference: "OLD2-0001", created_at: ago(200), updated_at: ago(200) });
    await insertReport(t.app, {
      reference: "FAR1-0001",
      latitude: 50.9962,
      longitude: -2.0237,
      created_at: ago(0.3),
      status: "investigating",
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("serves the discovery document in JSON and XML", async () => {
    const { json } = await getBoth(t.app, "/api/v2/discovery.{format}", "discovery");
    expectValid("discovery", json);
    const d = json as { endpoints: { url: string; specification: string; formats: string[] }[]; key_service: string };
    expect(d.endpoints[0]?.url).toBe("http://civic.test/api/v2");
    expect(d.endpoints[0]?.specification).toBe("http://wiki.open311.org/GeoReport_v2");
    expect(d.endpoints[0]?.formats).toEqual(["text/xml", "application/json"]);
    expect(d.key_service).toContain("API key");
  });

  it("lists every public category as a realtime service, in both formats", async () => {
    const { json, xml } = await getBoth(t.app, "/api/v2/services.{format}", "services");
    expectValid("services", json);
    const services = json as { service_code: string; metadata: boolean; type: string; keywords: string | null }[];
    const categories = await t.app.civic.database.db.selectFrom("categories").select(["code", "attributes"]).execute();
    expect(services.map((s) => s.service_code).sort()).toEqual(categories.map((c) => c.code).sort());
    for (const s of services) {
      expect(s.type).toBe("realtime");
      const attrs = JSON.parse(categories.find((c) => c.code === s.service_code)?.attributes ?? "[]") as unknown[];
      expect(s.metadata).toBe(attrs.length > 0);
    }
    expect(services.find((s) => s.service_code === "pothole")?.keywords).toContain("pothole, hole");
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="utf-8"\?>\n<services><service><service_code>/);
  });

  it("hides categories that are not public", async () => {
    await t.app.civic.database.db
      .updateTable("categories")
      .set({ is_public: 0 })
      .where("code", "=", "graffiti")
      .execute();
    try {
      const services = (await get("/api/v2/services.json")).json() as { service_code: string }[];
      expect(services.some((s) => s.service_code === "graffiti")).toBe(false);
      expect((await get("/api/v2/services/graffiti.json")).statusCode).toBe(404);
    } finally {
      await t.app.civic.database.db
        .updateTable("categories")
        .set({ is_public: 1 })
        .where("code", "=", "graffiti")
        .execute();
    }
  });

  it("gives service definitions with all six datatypes, values and order", async () => {
    const services = (await get("/api/v2/services.json")).json() as { service_code: string; metadata: boolean }[];
    const datatypes = new Set<string>();
    for (const s of services.filter((x) => x.metadata)) {
      const { json } = await getBoth(t.app, `/api/v2/services/${s.service_code}.{format}`, "service_definition");
      expectValid("service-definition", json);
      const def = json as {
        service_code: string;
        attributes: { datatype: string; order: number; values?: unknown[] }[];
      };
      expect(def.service_code).toBe(s.service_code);
      const orders = def.attributes.map((a) => a.order);
      expect(orders).toEqual([...orders].sort((a, b) => a - b));
      for (const a of def.attributes) {
        datatypes.add(a.datatype);
        expect(a.values !== undefined).toBe(a.datatype.endsWith("valuelist"));
      }
    }
    expect([...datatypes].sort()).toEqual([
      "datetime",
      "multivaluelist",
      "number",
      "singlevaluelist",
      "string",
      "text",
    ]);

    const res = await get("/api/v2/services/streetlight.json");
    const def = res.json() as {
      attributes: {
        code: string;
        variable: boolean;
        required: boolean;
        description: string;
        values?: { key: string }[];
      }[];
    };
    const fault = def.attributes.find((a) => a.code === "fault");
    expect(fault?.description).toBe("Is the light flickering or out?");
    expect(fault?.required).toBe(true);
    expect(fault?.values?.map((v) => v.key)).toContain("flickering");
    expect(def.attributes.find((a) => a.code === "danger_notice")?.variable).toBe(false);
  });

  it("answers 404 in Open311 error format for an unknown service_code, request id and format", async () => {
    for (const url of [
      "/api/v2/services/no_such_thing.{format}",
      "/api/v2/requests/NOPE-0000.{format}",
      "/api/v2/requests/HIDE-0001.{format}",
      "/api/v2/requests/GONE-0001.{format}",
      "/api/v2/requests.{format}?service_code=pothole,no_such_thing",
    ]) {
      const { json, status } = await getBoth(t.app, url, "errors");
      expect(status, url).toBe(404);
      expectValid("errors", json);
      expect((json as { code: number }[])[0]?.code).toBe(404);
    }
    const html = await get("/api/v2/services.html");
    expect(html.statusCode).toBe(404);
    expect((html.json() as { description: string }[])[0]?.description).toContain(".json or .xml");
  });

  it("lists public requests of the last 90 days, newest first, in both formats", async () => {
    const { json } = await getBoth(t.app, "/api/v2/requests.{format}", "service_requests");
    expectValid("requests", json);
    const requests = json as Req[];
    const ids = requests.map((r) => r.service_request_id);
    expect(ids).toContain("PRIV-0001");
    expect(ids).toContain("DEMO-0001");
    for (const hidden of ["HIDE-0001", "GONE-0001", "OLD1-0001", "OLD2-0001"]) expect(ids).not.toContain(hidden);
    const times = requests.map((r) => r.requested_datetime);
    expect(times).toEqual([...times].sort().reverse());
    const fields = Object.keys(ServiceRequest.properties).sort();
    for (const r of requests) {
      // Exactly the standard's fields: nothing else leaves the server.
      expect(Object.keys(r).sort()).toEqual(fields);
      expect(r.requested_datetime).toMatch(/T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
      expect(typeof r.service_request_id).toBe("string");
      expect(typeof r.service_code).toBe("string");
    }
  });

  it("never returns the reporter's name, email, phone, device or account id", async () => {
    for (const url of [
      "/api/v2/requests.json",
      "/api/v2/requests.xml",
      "/api/v2/requests/PRIV-0001.json",
      "/api/v2/requests/PRIV-0001.xml",
      "/api/v2/requests.json?service_request_id=PRIV-0001",
    ]) {
      const body = (await get(url)).body;
      expect(body, url).toContain("PRIV-0001");
      for (const secret of ["secret.reporter", "Secretname", "900123", "device-SECRET", "account-SECRET"]) {
        expect(body, url).not.toContain(secret);
      }
    }
  });

  it("maps internal statuses to open/closed with the detail in status_notes, and makes media_url absolute", async () => {
    const [fixed] = await list("/api/v2/requests/PRIV-0001.json");
    expect(fixed?.status).toBe("closed");
    expect(fixed?.status_notes).toBe("Filled by the council.");
    expect(fixed?.media_url).toBe(`http://civic.test/photos/${"a".repeat(64)}.jpg`);
    expect(fixed?.description).toBe("Private details test: Nothing private in here.");
    const [investigating] = await list("/api/v2/requests/FAR1-0001.json");
    expect(investigating?.status).toBe("open");
    // No public note: status_notes is empty (null; an empty element in XML), not the status label.
    expect(investigating?.status_notes).toBeNull();
    const xml = (await get("/api/v2/requests/FAR1-0001.xml")).body;
    expect(xml).toContain("<status_notes/>");
    const { json } = await getBoth(t.app, "/api/v2/requests/PRIV-0001.{format}", "service_requests");
    expect((json as unknown[]).length).toBe(1);
  });

  it("filters by status, service_code list and service_request_id list (which overrides the rest)", async () => {
    const open = await list("/api/v2/requests.json?status=open");
    const closed = await list("/api/v2/requests.json?status=closed");
    const both = await list("/api/v2/requests.json?status=open,closed");
    expect(open.every((r) => r.status === "open")).toBe(true);
    expect(closed.every((r) => r.status === "closed")).toBe(true);
    expect(open.length).toBeGreaterThan(0);
    expect(closed.length).toBeGreaterThan(0);
    expect(both.length).toBe(open.length + closed.length);
    expect((await get("/api/v2/requests.json?status=pending")).statusCode).toBe(400);

    const lights = await list("/api/v2/requests.json?service_code=streetlight,fly_tipping");
    expect(lights.length).toBeGreaterThan(0);
    expect(new Set(lights.map((r) => r.service_code))).toEqual(new Set(["streetlight", "fly_tipping"]));

    const byId = await list(
      "/api/v2/requests.json?service_request_id=demo-0002,DEMO-0001,OLD2-0001,HIDE-0001&service_code=graffiti&status=closed&start_date=2000-01-01",
    );
    expect(byId.map((r) => r.service_request_id).sort()).toEqual(["DEMO-0001", "DEMO-0002", "OLD2-0001"]);
  });

  it("filters by start_date/end_date within at most 90 days, with W3C datetimes", async () => {
    const old = await list(
      `/api/v2/requests.json?start_date=${encodeURIComponent(ago(150))}&end_date=${encodeURIComponent(ago(100))}`,
    );
    expect(old.map((r) => r.service_request_id)).toEqual(["OLD1-0001"]);
    const startOnly = await list(`/api/v2/requests.json?start_date=${encodeURIComponent(ago(250))}`);
    expect(startOnly.map((r) => r.service_request_id)).toEqual(["OLD2-0001"]);
    const endOnly = await list(`/api/v2/requests.json?end_date=${encodeURIComponent(ago(110))}`);
    expect(endOnly.map((r) => r.service_request_id)).toEqual(["OLD1-0001"]);
    // An offset timezone, sent with a raw "+" that the query string turns into a space.
    const t0 = new Date(t.app.civic.now().getTime() - 130 * DAY);
    const local = `${new Date(t0.getTime() + 3600_000).toISOString().slice(0, 19)}+01:00`;
    const offset = await list(`/api/v2/requests.json?start_date=${local}&end_date=${ago(100)}`);
    expect(offset.map((r) => r.service_request_id)).toEqual(["OLD1-0001"]);

    // ISO 8601 offsets without the colon, as Python's %z writes them: raw "+" (a space once decoded), %2B and "-".
    const compact = (ms: number, offsetMinutes: number) => {
      const sign = offsetMinutes < 0 ? "-" : "+";
      const abs = Math.abs(offsetMinutes);
      const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
      return `${new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19)}${sign}${hhmm}`;
    };
    for (const [start, end] of [
      [compact(t0.getTime(), 0), compact(Date.parse(ago(100)), 0)],
      [compact(t0.getTime(), -300), compact(Date.parse(ago(100)), -300)],
      [encodeURIComponent(compact(t0.getTime(), 60)), encodeURIComponent(compact(Date.parse(ago(100)), 90))],
    ] as const) {
      const found = await list(`/api/v2/requests.json?start_date=${start}&end_date=${end}`);
      expect(
        found.map((r) => r.service_request_id),
        start,
      ).toEqual(["OLD1-0001"]);
    }

    for (const [query, field] of [
      [`start_date=${ago(200)}&end_date=${ago(100)}`, "end_date"],
      [`start_date=${ago(10)}&end_date=${ago(20)}`, "end_date"],
      ["start_date=2026-13-01T00:00:00Z", "start_date"],
      ["start_date=2026-01-01T00:00:00", "start_date"],
      ["end_date=yesterday", "end_date"],
      // Empty, as the published pattern refuses them (not read as "no date").
      ["start_date=", "start_date"],
      ["end_date=", "end_date"],
      ["start_date=%20&end_date=2026-01-01", "start_date"],
      ["service_request_id=DEMO-0001&end_date=", "end_date"],
    ] as const) {
      const res = await get(`/api/v2/requests.json?${query}`);
      expect(res.statusCode, query).toBe(400);
      const errors = res.json() as { code: number; description: string }[];
      expectValid("errors", errors);
      expect(errors[0]?.description.startsWith(field), query).toBe(true);
    }
    const noZone = (await get("/api/v2/requests.json?start_date=2026-01-01T00:00:00")).json() as {
      description: string;
    }[];
    expect(noZone[0]?.description).toContain("timezone");
  });

  it("finds reports near a place (lat, long, radius in metres)", async () => {
    const near = await list("/api/v2/requests.json?lat=50.9962&long=-2.0237&radius=50");
    expect(near.map((r) => r.service_request_id)).toEqual(["FAR1-0001"]);
    const wider = await list("/api/v2/requests.json?lat=50.9962&long=-2.0237&radius=20000");
    expect(wider.length).toBeGreaterThan(10);
    expect((await get("/api/v2/requests.json?lat=50.99")).statusCode).toBe(400);
    expect((await get("/api/v2/requests.json?radius=100")).statusCode).toBe(400);
    expect((await get("/api/v2/requests.json?lat=north&long=-2")).statusCode).toBe(400);
  });

  it("computes the near-here grid cell the same way in the database and in JavaScript", async () => {
    const db = t.app.civic.database.db;
    const points: [number, number][] = [];
    for (let i = 0; i < 200; i++)
      points.push([50.975 + ((i * 7919) % 997) / 44_500, -2.0651 + ((i * 104_729) % 991) / 23_100]);
    // Exact cell boundaries too.
    points.push([50.976, -2.064], [50.978, -2.06]);
    for (const [i, [lat, lng]] of points.entries()) {
      const ref = `CELL-${String(i).padStart(4, "0")}`;
      await insertReport(t.app, { reference: ref, latitude: lat, longitude: lng, created_at: ago(300) });
    }
    const rows = await db
      .selectFrom("reports")
      .select(["latitude", "longitude", geoCellSql(db).as("cell")])
      .where("reference", "like", "CELL-%")
      .execute();
    expect(rows).toHaveLength(points.length);
    for (const r of rows) expect(Number(r.cell)).toBe(geoCell(r.latitude as number, r.longitude as number));
    await db.deleteFrom("reports").where("reference", "like", "CELL-%").execute();
  });

  it("answers the default, service_code + status and near-here queries from indexes, without full scans", async () => {
    const db = t.app.civic.database.db;
    const queries = {
      default: {},
      codeAndStatus: { service_code: "streetlight", status: "open" },
      near: { lat: 50.9862, long: -2.0437, radius: 300 },
    };
    for (const [name, q] of Object.entries(queries)) {
      const compiled = requestsQuery(db, parseRequestsQuery(q, t.app.civic.now())).compile();
      const plan = await db.transaction().execute(async (tx) => {
        if (dialect === "postgres") await sql`set local enable_seqscan = off`.execute(tx);
        const prefix = dialect === "postgres" ? "EXPLAIN " : "EXPLAIN QUERY PLAN ";
        const rows = await tx.executeQuery(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
        return (rows.rows as Record<string, unknown>[]).map((r) => String(r.detail ?? r["QUERY PLAN"])).join("\n");
      });
      expect(plan, name).not.toMatch(/SCAN reports\b|Seq Scan on reports/);
      expect(plan, name).toMatch(/reports_(public_created|category_created|public_cell_created)/);
      if (name === "near" && dialect === "sqlite") expect(plan).toContain("reports_public_cell_created");
    }
  });

  it("returns at most 1,000 per response and pages with page/page_size", async () => {
    const db = t.app.civic.database.db;
    const base = t.app.civic.now().getTime() - 40 * DAY;
    const rows = Array.from({ length: 1005 }, (_, i) => ({
      reference: `BULK-${String(i).padStart(4, "0")}`,
      category_code: "litter_bin",
      title: "Bulk",
      description: "Bulk report.",
      latitude: 50.98,
      longitude: -2.04,
      attributes: "{}",
      status: "open" as const,
      visibility: "public" as const,
      share_contact: 0,
      source: "web" as const,
      created_at: new Date(base + i * 1000).toISOString(),
      updated_at: new Date(base + i * 1000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto("reports")
        .values(rows.slice(i, i + 200))
        .execute();

    const all = await list("/api/v2/requests.json?service_code=litter_bin");
    expect(all.length).toBe(1000);
    const page2 = await list("/api/v2/requests.json?service_code=litter_bin&page=2");
    expect(page2.length).toBeGreaterThanOrEqual(5);
    expect(new Set([...all, ...page2].map((r) => r.service_request_id)).size).toBe(all.length + page2.length);
    const small = await list("/api/v2/requests.json?service_code=litter_bin&page_size=10&page=3");
    expect(small.map((r) => r.service_request_id)).toEqual(all.slice(20, 30).map((r) => r.service_request_id));
    expect((await get("/api/v2/requests.json?page_size=1001")).statusCode).toBe(400);
    expect((await get("/api/v2/requests.json?page=0")).statusCode).toBe(400);
    await db.deleteFrom("reports").where("reference", "like", "BULK-%").execute();
  });

  it("maps a token to its request (realtime server: tokens are reference numbers) or 404s", async () => {
    const { json } = await getBoth(t.app, "/api/v2/tokens/DEMO-0003.{format}", "service_requests");
    expectValid("tokens", json);
    expect(json).toEqual([{ service_request_id: "DEMO-0003", token: "DEMO-0003" }]);
    const missing = await get("/api/v2/tokens/12345.json");
    expect(missing.statusCode).toBe(404);
    expect((missing.json() as { description: string }[])[0]?.description).toContain("realtime");
  });

  it("needs no key to read, allows any origin and answers CORS preflight", async () => {
    for (const url of ["/api/v2/services.json", "/api/v2/requests.xml", "/api/v2/services/nope.json"]) {
      const res = await get(url);
      expect(res.headers["access-control-allow-origin"], url).toBe("*");
    }
    const pre = await t.app.inject({
      method: "OPTIONS",
      url: "/api/v2/requests.json",
      headers: { origin: "https://app.example.org", "access-control-request-method": "POST" },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    expect(pre.headers["access-control-allow-methods"]).toContain("GET");
  });

  it("gives every read a strong ETag, answers 304 to If-None-Match and lets browser scripts read and send them", async () => {
    for (const url of [
      "/api/v2/requests/PRIV-0001.json",
      "/api/v2/requests/PRIV-0001.xml",
      "/api/v2/requests.json?service_request_id=PRIV-0001,FAR1-0001",
      "/api/v2/tokens/PRIV-0001.json",
      "/api/v2/discovery.xml",
      "/api/v2/requests.json",
      "/api/v2/services.json",
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      const etag = String(res.headers.etag);
      expect(etag, url).toMatch(/^"[^"]+"$/);
      expect(String(res.headers["access-control-expose-headers"]), url).toMatch(/(^|, )ETag(,|$)/);
      const again = await t.app.inject({ method: "GET", url, headers: { "if-none-match": etag } });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe("");
      expect(again.headers.etag, url).toBe(etag);
      expect(again.headers["access-control-allow-origin"], url).toBe("*");
      const head = await t.app.inject({ method: "HEAD", url });
      expect(head.statusCode, url).toBe(200);
      expect(head.headers.etag, url).toBe(etag);
      expect(head.body, url).toBe("");
    }
    // JSON and XML of one request are different representations with different tags.
    expect((await get("/api/v2/requests/PRIV-0001.json")).headers.etag).not.toBe(
      (await get("/api/v2/requests/PRIV-0001.xml")).headers.etag,
    );
    const pre = await t.app.inject({
      method: "OPTIONS",
      url: "/api/v2/requests/PRIV-0001.json",
      headers: {
        origin: "https://app.example.org",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match, if-modified-since",
      },
    });
    expect(pre.statusCode).toBe(204);
    const allowed = String(pre.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["if-none-match", "if-modified-since", "x-api-key"]));
    expect(String(pre.headers["access-control-allow-methods"])).toContain("HEAD");
  });

  it("ignores jurisdiction_id and an unknown api_key on reads", async () => {
    const res = await get("/api/v2/services.json?jurisdiction_id=example.org&api_key=civic_wrong");
    expect(res.statusCode).toBe(200);
    const key = await createApiKey(t.app.civic.database.db, "Reader", new Date());
    expect((await get(`/api/v2/services.json?api_key=${key.key}`)).statusCode).toBe(200);
  });

  it("describes every Open311 route in the OpenAPI document", async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> };
    const expected: [string, string][] = [
      ["/api/v2/discovery.{format}", "get"],
      ["/api/v2/services.{format}", "get"],
      ["/api/v2/services/{service_code}.{format}", "get"],
      ["/api/v2/requests.{format}", "get"],
      ["/api/v2/requests.{format}", "post"],
      ["/api/v2/requests/{service_request_id}.{format}", "get"],
      ["/api/v2/tokens/{token}.{format}", "get"],
    ];
    for (const [path, method] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.tags).toEqual(["Open311"]);
      expect(op?.summary).toBeTruthy();
    }
  });

  it("reads XML that parses strictly (entities escaped)", async () => {
    await insertReport(t.app, {
      reference: "XMLX-0001",
      title: "Fish & chips <shop>",
      description: "Bins by \"The Plaice\" overflow & it's 'bad'.",
      created_at: ago(0.05),
    });
    const res = await get("/api/v2/requests/XMLX-0001.xml");
    const tree = sparkFromXml(parseXml(res.body)) as { description: string }[];
    expect(tree[0]?.description).toBe("Fish & chips <shop>: Bins by \"The Plaice\" overflow & it's 'bad'.");
  });
});
