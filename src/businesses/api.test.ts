import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { expand, expandedTypes, ownTerms, schemaOrgProblems } from "../../test/businesses/schema-org.js";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { businesses as demoBusinesses } from "../demo/village.js";
import type { BusinessInput } from "./model.js";
import { applyBusinesses, removeBusiness } from "./repository.js";
import { businessDataset } from "./routes.js";
import { until } from "../../test/helpers/wait.js";

const SEEDED_AT = "2026-11-01T10:00:00.000Z";
const BASE = "http://civic.test";

type Json = Record<string, unknown>;
type ItemList = {
  "@context": string;
  "@type": string;
  "@id": string;
  numberOfItems: number;
  itemListElement: { "@type": string; position: number; item: Json }[];
};

const json = <T = Json>(res: LightMyRequestResponse) => JSON.parse(res.body) as T;
const ids = (list: ItemList) => list.itemListElement.map((e) => e.item.identifier as string);

function expectOpenCors(res: LightMyRequestResponse) {
  expect(res.headers["access-control-allow-origin"]).toBe("*");
  expect(String(res.headers["access-control-expose-headers"]).toLowerCase()).toMatch(/etag/);
  expect(String(res.headers["access-control-expose-headers"]).toLowerCase()).toMatch(/x-dataset-version/);
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = json(res);
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(typeof body.detail).toBe("string");
  expectOpenCors(res);
  return body;
}

/** A record in the import shape, from a demo business. */
function inputFrom(id: string, changes: Partial<BusinessInput> = {}): BusinessInput {
  const b = demoBusinesses.find((x) => x.id === id);
  if (!b) throw new Error(id);
  return {
    id: b.id,
    name: b.name,
    schemaType: b.schemaType,
    category: b.category,
    description: b.description,
    address: { ...b.address },
    geo: { ...b.geo },
    telephone: b.telephone ?? null,
    email: b.email ?? null,
    url: b.url ?? null,
    image: b.image ?? null,
    sameAs: b.sameAs ?? [],
    openingHours: b.openingHours.map((h) => ({ ...h, dayOfWeek: [...h.dayOfWeek] })),
    ...changes,
  };
}

describeEachDb("business API", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now: () => new Date(SEEDED_AT) });
  });
  afterAll(async () => {
    await t?.close();
  });
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url, headers });

  it("lists every business as a schema.org ItemList with the headers the spec requires", async () => {
    const res = await get("/api/v1/businesses");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["cache-control"]).toBe("max-age=3600, s-maxage=86400");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(res.headers["x-dataset-version"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expectOpenCors(res);
    const list = json<ItemList>(res);
    expect(list["@context"]).toBe("https://schema.org");
    expect(list["@type"]).toBe("ItemList");
    expect(list["@id"]).toBe(`${BASE}/api/v1/businesses`);
    expect(list.numberOfItems).toBe(demoBusinesses.length);
    expect(list.itemListElement).toHaveLength(demoBusinesses.length);
    list.itemListElement.forEach((e, i) => {
      expect(e["@type"]).toBe("ListItem");
      expect(e.position).toBe(i + 1);
      expect(e.item["@context"]).toEqual([
        "https://schema.org",
        {
          directory: `${BASE}/api/v1/vocabulary#`,
          category: "directory:category",
          dateCreated: "directory:dateCreated",
          dateModified: "directory:dateModified",
        },
      ]);
      expect(e.item["@id"]).toBe(`${BASE}/api/v1/businesses/${e.item.identifier}`);
      expect(typeof e.item["@type"]).toBe("string");
    });
    expect(ids(list)).toEqual([...ids(list)].sort());
  });

  it("serves JSON-LD whose every property, nested ones too, is defined for its entity's type", async () => {
    // schema.org's properties by their schema:domainIncludes (with subclasses), the directory's own terms by the
    // vocabulary the API serves; nothing else.
    const vocabulary = await get("/api/v1/vocabulary");
    expect(vocabulary.statusCode).toBe(200);
    expect(vocabulary.headers["content-type"]).toMatch(/^application\/ld\+json/);
    const own = await ownTerms(json(vocabulary));
    expect([...own.keys()]).toEqual(
      ["category", "dateCreated", "dateModified"].map((t) => `${BASE}/api/v1/vocabulary#${t}`),
    );

    const list = json(await get("/api/v1/businesses"));
    const expandedList = await expand(list);
    expect(schemaOrgProblems(expandedList, own)).toEqual([]);
    const types = new Set(expandedTypes(expandedList));
    for (const t of [
      "ItemList",
      "ListItem",
      "Bakery",
      "PostalAddress",
      "GeoCoordinates",
      "OpeningHoursSpecification",
    ]) {
      expect(types).toContain(t);
    }
    const single = await expand(json(await get("/api/v1/businesses/the-old-bakery")));
    expect(schemaOrgProblems(single, own)).toEqual([]);
    expect(single[0]?.["@id"]).toBe(`${BASE}/api/v1/businesses/the-old-bakery`);
    expect(single[0]?.["@type"]).toEqual(["http://schema.org/Bakery"]);
    expect(single[0]?.["http://schema.org/name"]).toEqual([{ "@value": "The Old Bakery" }]);
    expect(single[0]?.[`${BASE}/api/v1/vocabulary#category`]).toEqual([{ "@value": "Food and drink" }]);
    expect(single[0]?.[`${BASE}/api/v1/vocabulary#dateModified`]).toEqual([{ "@value": SEEDED_AT }]);
    expect(single[0]?.["http://schema.org/category"]).toBeUndefined();
    const canonical = await expand(json(await get("/data/businesses-canonical.json")));
    expect(schemaOrgProblems(canonical, own)).toEqual([]);
    const diff = json<{ added: unknown[]; updated: unknown[] }>(await get("/api/v1/diff?since=2026-11-01"));
    expect(diff.added.length).toBeGreaterThan(0);
    expect(schemaOrgProblems(await expand(diff.added), own)).toEqual([]);
    expect(schemaOrgProblems(await expand(diff.updated), own)).toEqual([]);
  });

  it("serves its own vocabulary with a validator and open CORS", async () => {
    const res = await get("/api/v1/vocabulary");
    expectOpenCors(res);
    const doc = json<{ "@id": string; "@graph": Json[] }>(res);
    expect(doc["@id"]).toBe(`${BASE}/api/v1/vocabulary`);
    expect(doc["@graph"].map((t) => t["rdfs:subPropertyOf"])).toEqual([
      undefined,
      { "@id": "http://purl.org/dc/terms/created" },
      { "@id": "http://purl.org/dc/terms/modified" },
    ]);
    const etag = res.headers.etag as string;
    expect(etag).toBe(`"${createHash("sha256").update(res.rawPayload).digest("hex")}"`);
    const again = await t.app.inject({ url: "/api/v1/vocabulary", headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
  });

  it("filters by display category, case-insensitively", async () => {
    const a = json<ItemList>(await get("/api/v1/businesses?category=Food%20and%20drink"));
    const b = json<ItemList>(await get("/api/v1/businesses?category=FOOD%20AND%20DRINK"));
    const expected = demoBusinesses.filter((x) => x.category === "Food and drink").map((x) => x.id);
    expect(ids(a).sort()).toEqual(expected.sort());
    expect(ids(b)).toEqual(ids(a));
    expect(a["@id"]).toBe(`${BASE}/api/v1/businesses?category=Food+and+drink`);
    expect(json<ItemList>(await get("/api/v1/businesses?category=Food")).numberOfItems).toBe(0);
  });

  it("filters by schema.org type including its subtypes", async () => {
    const food = ids(json<ItemList>(await get("/api/v1/businesses?schemaType=FoodEstablishment")));
    expect(food).toContain("the-old-bakery");
    expect(food).toContain("cafe-lumiere");
    expect(food).toContain("the-plough-inn");
    const foodTypes = new Set(demoBusinesses.filter((b) => food.includes(b.id)).map((b) => b.schemaType));
    for (const t of foodTypes) {
      expect([
        "Bakery",
        "CafeOrCoffeeShop",
        "BarOrPub",
        "Restaurant",
        "FastFoodRestaurant",
        "IceCreamShop",
        "Brewery",
      ]).toContain(t);
    }
    expect(json<ItemList>(await get("/api/v1/businesses?schemaType=foodestablishment")).numberOfItems).toBe(
      food.length,
    );
    expect(json<ItemList>(await get("/api/v1/businesses?schemaType=Bakery")).numberOfItems).toBe(2);
    // Pharmacy is a MedicalBusiness through one parent and a MedicalOrganization through another.
    const medical = json<ItemList>(await get("/api/v1/businesses?schemaType=MedicalOrganization"));
    expect(medical.itemListElement.map((e) => e.item["@type"])).toContain("Pharmacy");
    expect(json<ItemList>(await get("/api/v1/businesses?schemaType=LocalBusiness")).numberOfItems).toBe(
      demoBusinesses.length,
    );
    expect(json<ItemList>(await get("/api/v1/businesses?schemaType=Book")).numberOfItems).toBe(0);
    const bad = expectProblem(await get("/api/v1/businesses?schemaType=Bakeryy"), 400, "validation_failed");
    expect(bad.detail).toMatch(/Bakeryy.*not a schema\.org type/);
  });

  it("searches name, description, category and address, ignoring case and accents", async () => {
    const q = async (text: string) =>
      ids(json<ItemList>(await get(`/api/v1/businesses?q=${encodeURIComponent(text)}`)));
    expect(await q("PATISSERIE noelle")).toEqual(["patisserie-noelle"]);
    expect(await q("Pâtisserie Noëlle")).toEqual(["patisserie-noelle"]);
    expect(await q("sourdough")).toContain("the-old-bakery");
    expect(await q("3 high street")).toContain("the-old-bakery");
    expect(await q("YR7 2QP")).toContain("the-old-bakery");
    expect((await q("food and drink")).length).toBe(
      demoBusinesses.filter((b) => b.category === "Food and drink").length,
    );
    expect(await q("sourdough zebra")).toEqual([]);
    // Filters combine with AND.
    expect(ids(json<ItemList>(await get("/api/v1/businesses?category=Shops&q=sourdough")))).toEqual([]);
    expect(ids(json<ItemList>(await get("/api/v1/businesses?schemaType=Bakery&q=croissants")))).toEqual([
      "patisserie-noelle",
    ]);
  });

  it("rejects q over 200 characters with a problem, and accepts 200", async () => {
    expect((await get(`/api/v1/businesses?q=${"a".repeat(200)}`)).statusCode).toBe(200);
    const body = expectProblem(await get(`/api/v1/businesses?q=${"a".repeat(201)}`), 400, "validation_failed");
    expect(body.detail).toMatch(/q/);
    expect(body.detail).toMatch(/200/);
  });

  it("returns one business as LocalBusiness JSON-LD, 404 for an unknown id", async () => {
    const res = await get("/api/v1/businesses/cafe-lumiere");
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("max-age=3600, s-maxage=86400");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(res.headers["x-dataset-version"]).toBeUndefined();
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expectOpenCors(res);
    const b = json(res);
    expect(b["@type"]).toBe("CafeOrCoffeeShop");
    expect(b["@id"]).toBe(`${BASE}/api/v1/businesses/cafe-lumiere`);
    expect(b.geo).toEqual({ "@type": "GeoCoordinates", latitude: expect.any(Number), longitude: expect.any(Number) });
    expect(b.dateCreated).toBe(SEEDED_AT);
    const missing = expectProblem(await get("/api/v1/businesses/no-such-shop"), 404, "not_found");
    expect(missing.detail).toMatch(/no-such-shop/);
    expectOpenCors(await get("/api/v1/no-such-endpoint"));
  });

  it("answers If-None-Match per RFC 9110 with a 304 carrying the 200's headers", async () => {
    for (const url of ["/api/v1/businesses", "/api/v1/businesses/the-old-bakery", "/data/businesses-canonical.json"]) {
      const first = await get(url);
      const etag = first.headers.etag as string;
      for (const inm of [etag, `"nope", ${etag}`, `W/${etag}`, "*", `"a","b" , ${etag}`]) {
        const res = await get(url, { "if-none-match": inm });
        expect(res.statusCode, `${url} ${inm}`).toBe(304);
        expect(res.body).toBe("");
        for (const h of ["etag", "cache-control", "vary", "x-dataset-version", "access-control-allow-origin"]) {
          expect(res.headers[h], h).toBe(first.headers[h]);
        }
      }
      expect((await get(url, { "if-none-match": '"nope"' })).statusCode).toBe(200);
      expect((await get(url, { "if-none-match": etag.slice(0, -2) + '"' })).statusCode).toBe(200);
    }
  });

  it("negotiates gzip and brotli with a different ETag per encoding", async () => {
    const plain = await get("/api/v1/businesses");
    const gz = await get("/api/v1/businesses", { "accept-encoding": "gzip" });
    const br = await get("/api/v1/businesses", { "accept-encoding": "gzip, deflate, br" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const tags = new Set([plain.headers.etag, gz.headers.etag, br.headers.etag]);
    expect(tags.size).toBe(3);
    for (const r of [gz, br]) expect(r.headers.vary).toBe("Accept-Encoding");
    // q-values: gzip preferred over br when the client says so; everything refused falls back to identity.
    expect((await get("/api/v1/businesses", { "accept-encoding": "br;q=0.5, gzip" })).headers["content-encoding"]).toBe(
      "gzip",
    );
    expect(
      (await get("/api/v1/businesses", { "accept-encoding": "br;q=0, gzip;q=0" })).headers["content-encoding"],
    ).toBeUndefined();
    // A tag is only good for its own encoding: the identity tag does not validate the gzip bytes.
    const cross = await get("/api/v1/businesses", {
      "accept-encoding": "gzip",
      "if-none-match": String(plain.headers.etag),
    });
    expect(cross.statusCode).toBe(200);
    const same = await get("/api/v1/businesses", {
      "accept-encoding": "gzip",
      "if-none-match": String(gz.headers.etag),
    });
    expect(same.statusCode).toBe(304);
    expect(same.headers.etag).toBe(gz.headers.etag);
    // Filtered lists and single businesses are compressed too.
    const single = await get("/api/v1/businesses/the-old-bakery", { "accept-encoding": "br" });
    expect(JSON.parse(brotliDecompressSync(single.rawPayload).toString()).identifier).toBe("the-old-bakery");
  });

  it("prepares responses once per version: a 304 or an unfiltered list serialises nothing", async () => {
    await get("/api/v1/businesses", { "accept-encoding": "br" });
    const etag = String((await get("/api/v1/businesses", { "accept-encoding": "br" })).headers.etag);
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const ok = await get("/api/v1/businesses", { "accept-encoding": "br" });
      const notModified = await get("/api/v1/businesses", { "accept-encoding": "br", "if-none-match": etag });
      const canonical = await get("/data/businesses-canonical.json", { "accept-encoding": "gzip" });
      expect([ok.statusCode, notModified.statusCode, canonical.statusCode]).toEqual([200, 304, 200]);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    const snap = await businessDataset(t.app).current();
    expect(snap.list.body("br")).toBe(snap.list.body("br"));
    expect(snap.listFor({}, "")).toBe(snap.list);
  });

  it("answers HEAD with the GET headers and no body", async () => {
    const getRes = await get("/api/v1/businesses");
    const head = await t.app.inject({ method: "HEAD", url: "/api/v1/businesses" });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe("");
    for (const h of ["etag", "cache-control", "vary", "x-dataset-version", "content-type", "content-length"]) {
      expect(head.headers[h], h).toBe(getRes.headers[h]);
    }
    expectOpenCors(head);
  });

  it("answers CORS preflights openly, including one asking for If-None-Match", async () => {
    for (const url of ["/api/v1/businesses", "/api/v1/businesses/the-old-bakery", "/api/v1/diff?since=2026-11-01"]) {
      const res = await t.app.inject({
        method: "OPTIONS",
        url,
        headers: {
          origin: "https://elsewhere.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "if-none-match",
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(String(res.headers["access-control-allow-methods"])).toMatch(/GET/);
      expect(String(res.headers["access-control-allow-headers"]).toLowerCase()).toContain("if-none-match");
    }
  });

  it("serves the canonical export whose ETag is the sha-256 of its bytes", async () => {
    const res = await get("/data/businesses-canonical.json");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers.vary).toBe("Accept-Encoding");
    const hash = createHash("sha256").update(res.rawPayload).digest("hex");
    expect(res.headers.etag).toBe(`"${hash}"`);
    // The content version is the same on every dataset resource.
    expect((await get("/api/v1/businesses")).headers.etag).toBe(`"${hash}"`);
    const list = json<ItemList>(res);
    expect(list["@id"]).toBe(`${BASE}/data/businesses-canonical.json`);
    expect(list.numberOfItems).toBe(demoBusinesses.length);
  });

  it("rejects a missing or impossible since", async () => {
    expectProblem(await get("/api/v1/diff"), 400, "validation_failed");
    for (const since of ["2026-02-30", "2026-13-01", "2026-11", "yesterday", "2026-11-01T00:00:00Z"]) {
      const body = expectProblem(await get(`/api/v1/diff?since=${since}`), 400, "validation_failed");
      expect(body.detail).toMatch(/since/);
      expect(body.detail).toMatch(/YYYY-MM-DD/);
    }
    expect((await get("/api/v1/diff?since=2024-02-29")).statusCode).toBe(200);
  });

  it("records changes and serves them as a diff with tombstones; every instance sees them promptly", async () => {
    const before = await get("/api/v1/businesses");
    const dataset = businessDataset(t.app);
    const db = t.db.database.db;
    const changedAt = "2026-11-20T12:00:00.000Z";
    // A second instance on the same database, as behind a load balancer.
    const other = await (
      await import("../app.js")
    ).buildApp(t.config, {
      logger: false,
      database: t.db.reopen(),
    });
    try {
      const otherBefore = await other.inject({ url: "/api/v1/businesses" });
      expect(otherBefore.headers.etag).toBe(before.headers.etag);

      const summary = await applyBusinesses(
        db,
        [
          inputFrom("cafe-lumiere", { name: "Café Lumière & Crêperie" }),
          inputFrom("the-old-bakery"),
          { ...inputFrom("the-old-bakery"), id: "new-bakery", name: "The New Bakery" },
        ],
        { prune: false, at: changedAt },
      );
      expect(summary).toEqual({ added: 1, updated: 1, removed: 0, unchanged: 1 });
      expect(await removeBusiness(db, "the-wheatsheaf", changedAt)).toBe(true);
      expect(await removeBusiness(db, "the-wheatsheaf", changedAt)).toBe(false);

      // This instance and the other one both serve the new version within about a second.
      // Asked until both have looked at the change log again, for as long as the test's timeout allows.
      let etags: string[] = [];
      await until(async () => {
        etags = [
          String((await get("/api/v1/businesses")).headers.etag),
          String((await other.inject({ url: "/api/v1/businesses" })).headers.etag),
        ];
        return etags.every((e) => e !== before.headers.etag);
      }, 100);
      expect(etags[0]).not.toBe(before.headers.etag);
      expect(etags[1]).toBe(etags[0]);
      const snap = await dataset.current();
      expect(`"${snap.version}"`).toBe(etags[0]);

      expect((await get("/api/v1/businesses/new-bakery")).statusCode).toBe(200);
      const gone = expectProblem(await get("/api/v1/businesses/the-wheatsheaf"), 410, "gone");
      expect(gone.detail).toMatch(/removed/);
      expect((await get("/api/v1/businesses?q=wheatsheaf")).body).not.toMatch(/the-wheatsheaf/);

      // The change log: monotonic sequence, one entry per change.
      const log = await db.selectFrom("business_changes").selectAll().orderBy("seq").execute();
      const seqs = log.map((l) => l.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(log.filter((l) => l.changed_at === changedAt).map((l) => [l.business_id, l.kind])).toEqual([
        ["cafe-lumiere", "updated"],
        ["new-bakery", "added"],
        ["the-wheatsheaf", "removed"],
      ]);

      const res = await get("/api/v1/diff?since=2026-11-20");
      expect(res.statusCode).toBe(200);
      expect(res.headers["cache-control"]).toBe("max-age=300");
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.headers["x-dataset-version"]).toBeUndefined();
      expectOpenCors(res);
      const diff = json<{
        since: string;
        range: { from: string; to: string };
        datasetVersion: string;
        schemaVersion: string;
        added: Json[];
        updated: Json[];
        removed: Json[];
      }>(res);
      expect(diff.since).toBe("2026-11-20");
      expect(diff.range).toEqual({ from: "2026-11-20T00:00:00.000Z", to: changedAt });
      expect(`"${diff.datasetVersion}"`).toBe(etags[0]);
      expect(diff.schemaVersion).toBe(before.headers["x-dataset-version"]);
      expect(diff.added.map((b) => b.identifier)).toEqual(["new-bakery"]);
      expect(diff.updated.map((b) => [b.identifier, b.name])).toEqual([["cafe-lumiere", "Café Lumière & Crêperie"]]);
      expect(diff.removed).toEqual([
        { "@id": `${BASE}/api/v1/businesses/the-wheatsheaf`, identifier: "the-wheatsheaf", dateDeleted: changedAt },
      ]);
      const etag = String(res.headers.etag);
      expect((await get("/api/v1/diff?since=2026-11-20", { "if-none-match": etag })).statusCode).toBe(304);

      // Everything since the seed: the new café name is part of an "added" entry (it was created in range).
      const all = json<{ added: Json[]; updated: Json[]; removed: Json[] }>(await get("/api/v1/diff?since=2026-11-01"));
      expect(all.added).toHaveLength(demoBusinesses.length);
      expect(all.updated).toEqual([]);
      expect(all.removed.map((r) => r.identifier)).toEqual(["the-wheatsheaf"]);
      const later = json<{ range: { from: string; to: string }; added: Json[] }>(
        await get("/api/v1/diff?since=2026-11-21"),
      );
      expect(later.added).toEqual([]);
      expect(later.range).toEqual({ from: "2026-11-21T00:00:00.000Z", to: "2026-11-21T00:00:00.000Z" });
    } finally {
      await other.close();
    }
  });
});
