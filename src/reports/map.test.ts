import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { mapReports, type MapFilter, parseBbox } from "./map-data.js";
import { submitReport } from "./submit.js";
import { migrations } from "../core/db/migrations/index.js";

/** The village's box (config's default bounds) as west,south,east,north. */
const VILLAGE = "-2.0651,50.975,-2.0223,50.9974";
/** A small box around the test reports (south-west corner of the village), away from the demo reports' centre. */
const CORNER = "-2.0650,50.9751,-2.0600,50.9780";

type Point = [string, number, number, string, string];
interface MapAnswer {
  bbox: number[];
  zoom: number;
  total: number;
  points: Point[];
  clusters: [number, number, number][];
}
interface Feature {
  type: string;
  id: string;
  geometry: { type: string; coordinates: number[] };
  properties: Record<string, unknown>;
}

describeEachDb("the reports map's data (/api/reports/map.json) and GeoJSON (/api/reports.geojson)", (dialect) => {
  let t: TestApp;
  /** Test reports in the corner box, by title: reference and position. */
  const made = new Map<string, { reference: string; lat: number; lng: number }>();

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const db = t.db.database.db;
    const specs: [string, string, number, number][] = [
      ["Corner open pothole", "pothole", 50.976, -2.064],
      ["Corner fixed pothole", "pothole", 50.9762, -2.0638],
      ["Corner hidden pothole", "pothole", 50.9764, -2.0636],
      ["Corner closed light", "streetlight", 50.9766, -2.0634],
      ["Corner light in progress", "streetlight", 50.9768, -2.0632],
    ];
    for (const [title, categoryCode, lat, lng] of specs) {
      const attributes: Record<string, string> =
        categoryCode === "pothole" ? { road_or_pavement: "road" } : { fault: "out" };
      const r = await submitReport(
        t.app.civic,
        reportSubmission({
          title,
          categoryCode,
          lat,
          lng,
          attributes,
          reporter: { email: "neighbour@example.org", name: "Pat Neighbour", phone: null, shareContact: false },
        }),
      );
      made.set(title, { reference: r.reference, lat, lng });
    }
    const set = async (title: string, values: { status?: "fixed" | "closed" | "in_progress"; visibility?: "hidden" }) =>
      db.updateTable("reports").set(values).where("reference", "=", made.get(title)!.reference).execute();
    await set("Corner fixed pothole", { status: "fixed" });
    await set("Corner hidden pothole", { visibility: "hidden" });
    await set("Corner closed light", { status: "closed" });
    await set("Corner light in progress", { status: "in_progress" });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, headers: { "accept-encoding": "identity", ...headers } });
  const map = async (query: string) => {
    const res = await get(`/api/reports/map.json?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as MapAnswer;
  };
  const titles = (a: MapAnswer) => a.points.map((p) => p[4]).sort();
  /** The box moved east and north by k × 0.00001°: a new answer (the answers are kept by their box). */
  const moved = (box: string, k: number) =>
    box
      .split(",")
      .map((v) => (Number(v) + k * 0.00001).toFixed(5))
      .join(",");
  /** The map's answer as the database gives it now, without anything kept. */
  const fresh = (box: string, zoom: number, filter: MapFilter = {}) =>
    mapReports(t.db.database.db, filter, parseBbox(box), zoom).then((a) => JSON.parse(JSON.stringify(a)) as MapAnswer);

  it("gives every public report in the box, with its status, and never a hidden one", async () => {
    const a = await map(`bbox=${CORNER}&zoom=17`);
    expect(titles(a)).toEqual([
      "Corner closed light",
      "Corner fixed pothole",
      "Corner light in progress",
      "Corner open pothole",
    ]);
    expect(a.total).toBe(4);
    expect(a.clusters).toEqual([]);
    const open = a.points.find((p) => p[4] === "Corner open pothole")!;
    expect(open).toEqual([made.get("Corner open pothole")!.reference, 50.976, -2.064, "open", "Corner open pothole"]);
    const body = (await get(`/api/reports/map.json?bbox=${VILLAGE}&zoom=15`)).body;
    expect(body).not.toContain(made.get("Corner hidden pothole")!.reference);
    expect(body).not.toContain("neighbour@example.org");
    expect(body).not.toContain("Pat Neighbour");
  });

  it("matches the list's filters: category, status, and hiding fixed and closed reports", async () => {
    expect(titles(await map(`bbox=${CORNER}&zoom=17&category=streetlight`))).toEqual([
      "Corner closed light",
      "Corner light in progress",
    ]);
    expect(titles(await map(`bbox=${CORNER}&zoom=17&status=fixed`))).toEqual(["Corner fixed pothole"]);
    expect(titles(await map(`bbox=${CORNER}&zoom=17&hide_closed=true`))).toEqual([
      "Corner light in progress",
      "Corner open pothole",
    ]);
    expect(titles(await map(`bbox=${CORNER}&zoom=17&category=no-such-category`))).toEqual([]);
  });

  it("gives only the reports inside the box", async () => {
    const a = await map("bbox=-2.0641,50.9759,-2.0639,50.9761&zoom=19");
    expect(titles(a)).toEqual(["Corner open pothole"]);
  });

  it("counts reports per cell at a low zoom, the counts adding up to every public report in the box", async () => {
    const publicCount = Number(
      (
        await t.db.database.db
          .selectFrom("reports")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("visibility", "=", "public")
          .where("latitude", "is not", null)
          .executeTakeFirstOrThrow()
      ).n,
    );
    const a = await map(`bbox=${VILLAGE}&zoom=11`);
    expect(a.clusters.length).toBeGreaterThan(0);
    expect(a.clusters.length + a.points.length).toBeLessThan(publicCount);
    for (const [, , n] of a.clusters) expect(n).toBeGreaterThanOrEqual(2);
    expect(a.clusters.reduce((s, c) => s + c[2], 0) + a.points.length).toBe(publicCount);
    expect(a.total).toBe(publicCount);
    // Filters too, and after reports move, change status or are hidden (the counts are kept by triggers).
    const db = t.db.database.db;
    const { reference } = made.get("Corner light in progress")!;
    await db
      .updateTable("reports")
      .set({ latitude: 50.99, longitude: -2.03 })
      .where("reference", "=", reference)
      .execute();
    await db
      .updateTable("reports")
      .set({ status: "fixed" })
      .where("reference", "=", made.get("Corner open pothole")!.reference)
      .execute();
    await db
      .updateTable("reports")
      .set({ visibility: "hidden" })
      .where("reference", "=", made.get("Corner closed light")!.reference)
      .execute();
    for (const query of ["", "&category=streetlight", "&status=fixed", "&hide_closed=true"]) {
      let expected = db
        .selectFrom("reports")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("visibility", "=", "public")
        .where("latitude", "is not", null);
      if (query.includes("category")) expected = expected.where("category_code", "=", "streetlight");
      if (query.includes("status")) expected = expected.where("status", "=", "fixed");
      if (query.includes("hide_closed"))
        expected = expected.where("status", "in", ["open", "investigating", "in_progress", "action_scheduled"]);
      const n = Number((await expected.executeTakeFirstOrThrow()).n);
      const low = await map(`bbox=${VILLAGE}&zoom=11${query}`);
      expect(low.total, query).toBe(n);
      expect(low.clusters.reduce((s, c) => s + c[2], 0) + low.points.length, query).toBe(n);
    }
    const moved = (await map(`bbox=-2.031,50.989,-2.029,50.991&zoom=11`)).points.map((p) => p[0]);
    expect(moved).toEqual([reference]);
    await db
      .updateTable("reports")
      .set({ latitude: 50.9768, longitude: -2.0632 })
      .where("reference", "=", reference)
      .execute();
    await db
      .updateTable("reports")
      .set({ status: "open" })
      .where("reference", "=", made.get("Corner open pothole")!.reference)
      .execute();
    await db
      .updateTable("reports")
      .set({ visibility: "public" })
      .where("reference", "=", made.get("Corner closed light")!.reference)
      .execute();
    // However wide the box, the grid has at most 64 × 64 cells.
    const wide = await map("bbox=-180,-90,180,90&zoom=20");
    expect(wide.clusters.length + wide.points.length).toBeLessThanOrEqual(64 * 64);
    expect(wide.total).toBe(publicCount);
  });

  it("answers a repeat with its ETag by 304, and a change with a new ETag", async () => {
    const url = `/api/reports/map.json?bbox=${CORNER}&zoom=17`;
    const first = await get(url);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers["access-control-allow-origin"]).toBe("*");
    const again = await get(url, { "if-none-match": etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    const br = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "br" } });
    if (br.headers["content-encoding"] === "br") {
      const encoded = String(br.headers.etag);
      expect(
        (await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "br", "if-none-match": encoded } }))
          .statusCode,
      ).toBe(304);
    }
    await submitReport(t.app.civic, reportSubmission({ title: "Corner new pothole", lat: 50.977, lng: -2.062 }));
    const changed = await get(url, { "if-none-match": etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(titles(changed.json() as MapAnswer)).toContain("Corner new pothole");
  });

  it("counts a moved map from the cells kept for this version of the public data, as the database would", async () => {
    // The whole village reads (and keeps) every cell's sums; the later boxes, large or small, are counted from them
    // (at zoom 12 and below always per cell of a grid).
    const whole = await map(`bbox=${moved(VILLAGE, 1)}&zoom=12`);
    expect(whole).toEqual(await fresh(moved(VILLAGE, 1), 12));
    expect(whole.clusters.length).toBeGreaterThan(0);
    for (const [box, zoom] of [
      [moved(VILLAGE, 2), 11],
      [moved(VILLAGE, 3), 15],
      [moved(CORNER, 4), 15],
      [moved(CORNER, 5), 17],
    ] as const) {
      expect(await map(`bbox=${box}&zoom=${zoom}`)).toEqual(await fresh(box, zoom));
    }
    const potholes = await map(`bbox=${moved(VILLAGE, 6)}&zoom=12&category=pothole&hide_closed=true`);
    expect(potholes).toEqual(await fresh(moved(VILLAGE, 6), 12, { category: "pothole", unresolved: true }));
    // Any change to the public data is counted at the next request, whatever the box.
    await submitReport(t.app.civic, reportSubmission({ title: "Kept cells pothole", lat: 50.99, lng: -2.03 }));
    const after = await map(`bbox=${moved(VILLAGE, 7)}&zoom=12`);
    expect(after.total).toBe(whole.total + 1);
    expect(after).toEqual(await fresh(moved(VILLAGE, 7), 12));
    const corner = await map(`bbox=${moved(CORNER, 8)}&zoom=15`);
    expect(corner).toEqual(await fresh(moved(CORNER, 8), 15));
  });

  it("keeps the whole area's counts right after every kind of change, by whatever code and while writers are still at work", async () => {
    const db = t.db.database.db;
    let k = 100;
    /** The whole village after a change: counted from this process's copy of the cells, as the database counts. */
    const same = async (filter = "", asked: MapFilter = {}) => {
      const box = moved(VILLAGE, k++);
      const kept = await map(`bbox=${box}&zoom=12${filter}`);
      expect(kept).toEqual(await fresh(box, 12, asked));
      return kept;
    };
    const first = await same();
    await same("&category=pothole&hide_closed=true", { category: "pothole", unresolved: true });
    const one = await submitReport(t.app.civic, reportSubmission({ title: "Copy pothole", lat: 50.985, lng: -2.05 }));
    expect((await same()).total).toBe(first.total + 1);
    const change = (values: Record<string, unknown>) =>
      db.updateTable("reports").set(values).where("reference", "=", one.reference).execute();
    await change({ status: "fixed" });
    await same("&hide_closed=true", { unresolved: true });
    await change({ latitude: 50.99, longitude: -2.03 });
    await same();
    await change({ category_code: "streetlight" });
    await same("&category=streetlight", { category: "streetlight" });
    await change({ visibility: "hidden" });
    expect((await same()).total).toBe(first.total);
    await change({ visibility: "public" });
    await same();
    if (dialect === "postgres") {
      // A writer still at work while the copy catches up (another change committed meanwhile): its change is counted
      // once it commits. (SQLite's writers take turns, so there a copy never reads while one is at work.)
      let inTransaction!: () => void;
      let finish!: () => void;
      const started = new Promise<void>((resolve) => (inTransaction = resolve));
      const gate = new Promise<void>((resolve) => (finish = resolve));
      const writer = db.transaction().execute(async (trx) => {
        await trx.updateTable("reports").set({ status: "closed" }).where("reference", "=", one.reference).execute();
        inTransaction();
        await gate;
      });
      await started;
      await submitReport(t.app.civic, reportSubmission({ title: "Meanwhile pothole", lat: 50.986, lng: -2.051 }));
      await same();
      finish();
      await writer;
      await same("&status=closed", { status: "closed" });
      await same();
    }
  });

  it("refuses a hostile or broken box or zoom with a 400 in problem+json", async () => {
    const bad = [
      "bbox=NaN,50,-2,51&zoom=15",
      "bbox=Infinity,50,-2,51&zoom=15",
      "bbox=-1e999,50,-2,51&zoom=15",
      "bbox=-2,51,-2.1,50&zoom=15",
      "bbox=-2.1,51,-2,50&zoom=15",
      "bbox=-2,50,-2,51&zoom=15",
      "bbox=-181,50,-2,51&zoom=15",
      "bbox=-2.1,50,-2,91&zoom=15",
      "bbox=999,999,999,999&zoom=15",
      "bbox=-2.1,50,-2&zoom=15",
      "bbox=-2.1,50,-2,51,3&zoom=15",
      `bbox=${"1".repeat(200)}&zoom=15`,
      "zoom=15",
      `bbox=${CORNER}`,
      `bbox=${CORNER}&zoom=99`,
      `bbox=${CORNER}&zoom=-1`,
      `bbox=${CORNER}&zoom=x`,
      `bbox=${CORNER}&zoom=15&status=nonsense`,
    ];
    for (const query of bad) {
      const res = await get(`/api/reports/map.json?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers["content-type"], query).toMatch(/^application\/problem\+json/);
      expect((res.json() as { code: string }).code, query).toBe("validation_failed");
    }
    expect((await get(`/api/reports.geojson?bbox=-2,51,-2.1,50`)).statusCode).toBe(400);
  });

  it("offers the public reports as RFC 7946 GeoJSON: points in [longitude, latitude] order, no personal data", async () => {
    const res = await get(`/api/reports.geojson?bbox=${CORNER}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/geo\+json/);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const doc = res.json() as { type: string; features: Feature[] };
    expect(Object.keys(doc).sort()).toEqual(["features", "type"]);
    expect(doc.type).toBe("FeatureCollection");
    expect(doc.features.map((f) => f.properties.title).sort()).toEqual([
      "Corner closed light",
      "Corner fixed pothole",
      "Corner light in progress",
      "Corner new pothole",
      "Corner open pothole",
    ]);
    for (const f of doc.features) {
      expect(f.type).toBe("Feature");
      expect(f.geometry.type).toBe("Point");
      expect(f.geometry.coordinates).toHaveLength(2);
      const [lng, lat] = f.geometry.coordinates as [number, number];
      expect(lng).toBeGreaterThanOrEqual(-180);
      expect(lng).toBeLessThanOrEqual(180);
      expect(lat).toBeGreaterThanOrEqual(-90);
      expect(lat).toBeLessThanOrEqual(90);
      expect(Object.keys(f.properties).sort()).toEqual(
        ["category", "created", "reference", "status", "statusLabel", "title", "updated", "url"].sort(),
      );
      expect(f.id).toBe(f.properties.reference);
      expect(String(f.properties.url)).toBe(`${t.config.baseUrl}/reports/${f.id}`);
      expect(Number.isNaN(Date.parse(String(f.properties.created)))).toBe(false);
    }
    const open = doc.features.find((f) => f.properties.title === "Corner open pothole")!;
    expect(open.geometry.coordinates).toEqual([-2.064, 50.976]);
    expect(open.properties.category).toBe("pothole");
    expect(open.properties.status).toBe("open");
    expect(res.body).not.toContain(made.get("Corner hidden pothole")!.reference);
    expect(res.body).not.toContain("neighbour@example.org");
    expect(res.body).not.toContain("Pat Neighbour");
    // Filters as on the list.
    const closedHidden = (await get(`/api/reports.geojson?bbox=${CORNER}&hide_closed=true`)).json() as {
      features: Feature[];
    };
    expect(closedHidden.features.map((f) => f.properties.status).sort()).toEqual(["in_progress", "open", "open"]);
  });

  it("is bounded and paged: limit, then Link rel=next with before", async () => {
    const first = await get(`/api/reports.geojson?bbox=${CORNER}&limit=2`);
    const page1 = (first.json() as { features: Feature[] }).features;
    expect(page1).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    expect(next).toBeDefined();
    const seen = [...page1.map((f) => f.id)];
    let url: string | undefined = next;
    while (url) {
      const res = await get(url.replace(t.config.baseUrl, ""));
      expect(res.statusCode).toBe(200);
      seen.push(...(res.json() as { features: Feature[] }).features.map((f) => f.id));
      url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ""))?.[1];
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect((await get("/api/reports.geojson?limit=1001")).statusCode).toBe(400);
    expect((await get("/api/reports.geojson?before=NOPE-NOPE")).statusCode).toBe(404);
    const all = (await get("/api/reports.geojson")).json() as { features: Feature[] };
    expect(all.features.length).toBeGreaterThan(5);
    expect(all.features.length).toBeLessThanOrEqual(1000);
  });

  it("answers the GeoJSON conditionally: ETag, Last-Modified, 304", async () => {
    const url = `/api/reports.geojson?bbox=${CORNER}`;
    const res = await get(url);
    const etag = String(res.headers.etag);
    const lastModified = String(res.headers["last-modified"]);
    expect(Number.isNaN(Date.parse(lastModified))).toBe(false);
    expect((await get(url, { "if-none-match": etag })).statusCode).toBe(304);
    expect((await get(url, { "if-modified-since": lastModified })).statusCode).toBe(304);
    expect((await get(url, { "if-none-match": '"other"', "if-modified-since": lastModified })).statusCode).toBe(200);
  });

  it("is in the OpenAPI description, as application/geo+json", async () => {
    const doc = (await get("/openapi.json")).json() as {
      paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    const geo = doc.paths["/api/reports.geojson"]?.get;
    expect(geo).toBeDefined();
    expect(Object.keys(geo?.responses["200"]?.content ?? {})).toEqual(["application/geo+json"]);
    expect(geo?.responses["304"]).toBeDefined();
    expect(doc.paths["/api/reports/map.json"]?.get).toBeDefined();
    const llms = (await get("/llms.txt")).body;
    expect(llms).toContain("/api/reports.geojson");
  });

  it("hides fixed and closed reports from the list with a checkbox of the filters form (no JavaScript needed)", async () => {
    const page = await get("/reports?hide_closed=true");
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<input[^>]*type="checkbox"[^>]*name="hide_closed"[^>]*value="true"[^>]*checked/);
    expect(page.body).toContain("Corner open pothole");
    expect(page.body).not.toContain("Corner fixed pothole");
    expect(page.body).not.toContain("Corner closed light");
    const all = await get("/reports?category=pothole&status=fixed");
    expect(all.body).toContain("Corner fixed pothole");
    expect(all.body).toMatch(/<input[^>]*name="hide_closed"/);
    expect(all.body).not.toMatch(/<input[^>]*name="hide_closed"[^>]*checked/);
  });

  it("reserves the map's space in the page and tells the map where its data is, with the filters", async () => {
    const page = await get("/reports?category=streetlight&hide_closed=true");
    const box = /<div[^>]*class="map-box[^"]*"[^>]*>/.exec(page.body)?.[0] ?? "";
    expect(box).not.toBe("");
    expect(box).not.toContain("hidden");
    const map = /<div[^>]*data-map-url="([^"]+)"[^>]*>/.exec(page.body);
    expect(map?.[1]?.replaceAll("&amp;", "&")).toBe("/api/reports/map.json?category=streetlight&hide_closed=true");
    expect(page.body).toMatch(/aria-live="polite"/);
    // Near a place, the map starts around it.
    const near = await get("/reports?near=church-lane");
    const bounds = /data-bounds="([^"]+)"/.exec(near.body)?.[1]?.split(",").map(Number) ?? [];
    const church = await t.db.database.db
      .selectFrom("places")
      .select(["latitude", "longitude"])
      .where("id", "=", "church-lane")
      .executeTakeFirstOrThrow();
    expect(bounds).toHaveLength(4);
    expect(((bounds[0] ?? 0) + (bounds[2] ?? 0)) / 2).toBeCloseTo(church.latitude, 6);
    expect(((bounds[1] ?? 0) + (bounds[3] ?? 0)) / 2).toBeCloseTo(church.longitude, 6);
  });

  it("starts a report at a spot given in the address (report a problem here)", async () => {
    const step = await get("/report?lat=50.9861&lng=-2.0437");
    expect(step.statusCode).toBe(200);
    expect(step.body).toMatch(/<input type="hidden" name="lat" value="50.9861"/);
    expect(step.body).toMatch(/<input type="hidden" name="lng" value="-2.0437"/);
    const form = await get("/report?category=pothole&lat=50.9861&lng=-2.0437");
    expect(form.body).toMatch(/name="lat" id="lat" value="50.9861"/);
    expect(form.body).toMatch(/name="lng" id="lng" value="-2.0437"/);
    // Outside the village, or not a number: no spot (the form works as usual).
    const far = await get("/report?category=pothole&lat=10&lng=10");
    expect(far.statusCode).toBe(200);
    expect(far.body).toMatch(/name="lat" id="lat" value\/>/);
    expect((await get("/report?category=pothole&lat=NaN&lng=1")).statusCode).toBe(400);
    // A report page's map offers it at the report's spot.
    const { reference } = made.get("Corner open pothole")!;
    const detail = await get(`/reports/${reference}`);
    expect(detail.body).toMatch(/href="\/report\?lat=50.976&amp;lng=-2.064"[^>]*>Report another problem here/);
  });

  it("keeps exact cell counts with reports submitted at once, spread over slots so they do not queue on one row", async () => {
    const db = t.db.database.db;
    const spot = { lat: 50.9772, lng: -2.0612 };
    const cell = Math.floor((spot.lat + 90) * 500) * 1_000_000 + Math.floor((spot.lng + 180) * 500);
    /** The public open potholes of the spot's cell, counted from the reports themselves. */
    const burst = async () =>
      (
        await db
          .selectFrom("reports")
          .select(["latitude", "longitude"])
          .where("category_code", "=", "pothole")
          .where("status", "=", "open")
          .where("visibility", "=", "public")
          .where("latitude", "is not", null)
          .execute()
      ).filter(
        (r) => Math.floor((r.latitude! + 90) * 500) * 1_000_000 + Math.floor((r.longitude! + 180) * 500) === cell,
      );
    const box = "bbox=-2.0615,50.9770,-2.0609,50.9774&zoom=12";
    const before = (await map(box)).total;
    // Twelve reports at one spot, in one category and status, sent at once (concurrent transactions on PostgreSQL).
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        submitReport(
          t.app.civic,
          reportSubmission({
            title: `Burst ${i}`,
            categoryCode: "pothole",
            ...spot,
            attributes: { road_or_pavement: "road" },
          }),
        ),
      ),
    );
    const rows = await db
      .selectFrom("report_map_cells")
      .select(["slot", "n", "lat_sum"])
      .where("cell", "=", cell)
      .where("category_code", "=", "pothole")
      .where("status", "=", "open")
      .where("visibility", "=", "public")
      .execute();
    expect(rows.reduce((sum, r) => sum + Number(r.n), 0)).toBe((await burst()).length);
    expect(new Set(rows.map((r) => r.slot)).size).toBeGreaterThan(1);
    expect((await map(box)).total).toBe(before + 12);

    if (dialect === "postgres") {
      // A report stored while another's transaction in the same cell, category and status is still open does not
      // wait for it: the two land in different slots (consecutive ids).
      const template = await db
        .selectFrom("reports")
        .selectAll()
        .where("title", "=", "Burst 0")
        .executeTakeFirstOrThrow();
      const { id: _id, ...row } = template;
      const copy = (reference: string) => ({ ...row, reference, title: `Burst ${reference}` });
      let other: Promise<unknown> = Promise.resolve();
      let outcome = "";
      await db.transaction().execute(async (open) => {
        await open.insertInto("reports").values(copy("LOCK-AAAA")).execute();
        other = db.insertInto("reports").values(copy("LOCK-BBBB")).execute();
        outcome = await Promise.race([
          other.then(() => "done"),
          new Promise<string>((resolve) => setTimeout(() => resolve("waited"), 3_000)),
        ]);
      });
      await other;
      expect(outcome).toBe("done");
      const total = await db
        .selectFrom("report_map_cells")
        .select((eb) => eb.fn.sum<number | string>("n").as("n"))
        .where("cell", "=", cell)
        .where("category_code", "=", "pothole")
        .where("status", "=", "open")
        .where("visibility", "=", "public")
        .executeTakeFirstOrThrow();
      expect(Number(total.n)).toBe((await burst()).length);
    }
    // The migration rebuilds the table from the reports, down (one row a combination) and up again (slots).
    const migration = migrations["0032_map_cell_slots"]!;
    const whole = async () =>
      Number(
        (
          await db
            .selectFrom("report_map_cells")
            .select((eb) => eb.fn.sum<number | string>("n").as("n"))
            .where("visibility", "=", "public")
            .executeTakeFirstOrThrow()
        ).n,
      );
    const counted = await whole();
    await migration.down!(db);
    expect(await whole()).toBe(counted);
    await migration.up(db);
    expect(await whole()).toBe(counted);
    expect((await burst()).length).toBeGreaterThanOrEqual(12);
  });
});
