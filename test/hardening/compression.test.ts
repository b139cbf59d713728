import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { LightMyRequestResponse } from "fastify";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPRESS_THRESHOLD } from "../../src/core/http/compression.js";
import { publicDir } from "../../src/core/web/paths.js";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { multipart } from "../open311/support.js";

/**
 * docs/api.md "Compression": every text answer is sent compressed to a client that accepts it (brotli first, then
 * gzip), with Vary: Accept-Encoding and a distinct ETag per encoding; built assets from their precompressed files;
 * nothing twice (the business API encodes itself), photos as they are.
 */

const BOTH = "br, gzip";

function decoded(res: LightMyRequestResponse): Buffer {
  const coding = res.headers["content-encoding"];
  if (coding === "br") return brotliDecompressSync(res.rawPayload);
  if (coding === "gzip") return gunzipSync(res.rawPayload);
  expect(coding, "no other coding").toBeUndefined();
  return res.rawPayload;
}

/** A page's per-request parts (form tokens: issued-at, random nonce, signature) do not count. */
const stable = (body: Buffer) => body.toString("utf8").replace(/[0-9a-z]+\.[\w-]{12}\.[\w-]{43}/g, "<token>");

const varies = (res: LightMyRequestResponse) =>
  String(res.headers.vary ?? "")
    .split(",")
    .map((v) => v.trim().toLowerCase())
    .includes("accept-encoding");

/** The built assets: every file the manifest names, and the images and stylesheets they pull in. */
const assetsDir = join(publicDir, "assets");
const manifest = JSON.parse(readFileSync(join(assetsDir, "manifest.json"), "utf8")) as Record<string, string>;

describeEachDb("compression", (dialect) => {
  let t: TestApp;
  let photoUrl: string;
  const get = (url: string, acceptEncoding?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: "GET",
      url,
      headers: { ...(acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding }), ...headers },
    });

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_READ_MAX: "100000", RATE_LIMIT_WRITE_MAX: "100000" },
    });
    const key = (await createApiKey(t.app.civic.database.db, "Compression", new Date())).key;
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } })
      .jpeg()
      .toBuffer();
    const form = multipart(
      [
        ["api_key", key],
        ["service_code", "pothole"],
        ["lat", "50.9865"],
        ["long", "-2.044"],
        ["description", "A pothole with a photo, for the compression test."],
        ["attribute[road_or_pavement]", "road"],
      ],
      [{ name: "media", filename: "p.jpg", type: "image/jpeg", data: photo }],
    );
    const posted = await t.app.inject({ method: "POST", url: "/api/v2/requests.json", ...form });
    expect(posted.statusCode).toBe(200);
    const id = (posted.json() as { service_request_id: string }[])[0]?.service_request_id;
    const one = await get(`/api/v2/requests/${id}.json`);
    const mediaUrl = (one.json() as { media_url?: string }[])[0]?.media_url ?? "";
    photoUrl = new URL(mediaUrl).pathname;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The identity body, then the same resource with brotli and with gzip: the same bytes once decoded. */
  async function expectCompressed(url: string) {
    const identity = await get(url);
    expect(identity.statusCode, url).toBe(200);
    expect(identity.headers["content-encoding"], url).toBeUndefined();
    expect(identity.rawPayload.length, `${url} is worth compressing`).toBeGreaterThanOrEqual(COMPRESS_THRESHOLD);
    expect(varies(identity), `${url}: Vary`).toBe(true);
    const br = await get(url, BOTH);
    expect(br.statusCode, url).toBe(200);
    expect(br.headers["content-encoding"], url).toBe("br");
    expect(varies(br), `${url}: Vary`).toBe(true);
    expect(br.rawPayload.length, url).toBeLessThan(identity.rawPayload.length);
    expect(Number(br.headers["content-length"]), url).toBe(br.rawPayload.length);
    const gz = await get(url, "gzip");
    expect(gz.headers["content-encoding"], url).toBe("gzip");
    expect(varies(gz), `${url}: Vary`).toBe(true);
    expect(stable(decoded(br)), url).toBe(stable(identity.rawPayload));
    expect(stable(decoded(gz)), url).toBe(stable(identity.rawPayload));
    return { identity, br, gz };
  }

  /** Distinct strong tags per encoding; each tag sent back with the same encoding is a 304 carrying it. */
  async function expectTagPerEncoding(url: string) {
    const { identity, br, gz } = await expectCompressed(url);
    const tags = [identity, br, gz].map((r) => String(r.headers.etag));
    expect(tags[0], url).toMatch(/^"[^"]+"$/);
    expect(new Set(tags).size, `${url}: ${tags.join(" ")}`).toBe(3);
    expect(tags[1], url).toBe(tags[0]?.replace(/"$/, '-br"'));
    expect(tags[2], url).toBe(tags[0]?.replace(/"$/, '-gzip"'));
    for (const [coding, res] of [
      [BOTH, br],
      ["gzip", gz],
      [undefined, identity],
    ] as const) {
      const again = await get(url, coding, { "if-none-match": String(res.headers.etag) });
      expect(again.statusCode, `${url} ${coding}`).toBe(304);
      expect(again.headers.etag, `${url} ${coding}`).toBe(res.headers.etag);
      expect(again.headers["content-encoding"]).toBeUndefined();
      expect(again.rawPayload.length).toBe(0);
      expect(varies(again), `${url} ${coding}: Vary on the 304`).toBe(true);
    }
    // The brotli bytes' tag is not the gzip bytes' tag.
    expect((await get(url, "gzip", { "if-none-match": String(br.headers.etag) })).statusCode, url).toBe(200);
    // HEAD carries GET's headers.
    const head = await t.app.inject({ method: "HEAD", url, headers: { "accept-encoding": BOTH } });
    expect(head.statusCode).toBe(200);
    for (const name of ["content-encoding", "etag", "vary", "content-length", "content-type"]) {
      expect(head.headers[name], `${url} HEAD ${name}`).toBe(br.headers[name]);
    }
    expect(head.rawPayload.length).toBe(0);
  }

  it("sends every public page compressed, brotli or gzip as accepted, the same page once decoded", async () => {
    for (const page of sitePages(FEATURES)) await expectCompressed(page.path);
  });

  it("sends identity when Accept-Encoding is absent, refuses everything else, or names nothing we offer", async () => {
    for (const acceptEncoding of [undefined, "", "identity", "identity;q=1, *;q=0", "deflate", "br;q=0, gzip;q=0"]) {
      const res = await get("/reports", acceptEncoding);
      expect(res.statusCode, String(acceptEncoding)).toBe(200);
      expect(res.headers["content-encoding"], String(acceptEncoding)).toBeUndefined();
      expect(varies(res)).toBe(true);
    }
    // RFC 9110 §12.5.3: the highest q-value wins; "*" stands for the codings not named.
    for (const [acceptEncoding, coding] of [
      ["gzip, br", "br"],
      ["br;q=0.5, gzip", "gzip"],
      ["br;q=0, *", "gzip"],
      ["*", "br"],
      ["GZIP", "gzip"],
      ["x-gzip", "gzip"],
    ] as const) {
      expect((await get("/reports", acceptEncoding)).headers["content-encoding"], acceptEncoding).toBe(coding);
    }
  });

  it("leaves small answers as they are", async () => {
    const res = await get("/robots.txt", BOTH);
    expect(res.rawPayload.length).toBeLessThan(COMPRESS_THRESHOLD);
    expect(res.headers["content-encoding"]).toBeUndefined();
    // It could have been compressed had it been larger: a cache keeps it per Accept-Encoding all the same.
    expect(varies(res)).toBe(true);
  });

  it("sends every built asset from its precompressed file, each encoding with its own validator", async () => {
    const files = [...Object.values(manifest), "/assets/manifest.json"];
    expect(files.some((f) => f.endsWith(".css"))).toBe(true);
    expect(files.some((f) => /\/report-map-[^/]+\.js$/.test(f))).toBe(true);
    for (const url of files) {
      const identity = await get(url);
      expect(identity.statusCode, url).toBe(200);
      expect(identity.headers["content-encoding"], url).toBeUndefined();
      const br = await get(url, BOTH);
      const gz = await get(url, "gzip, deflate");
      expect(br.headers["content-encoding"], url).toBe("br");
      expect(gz.headers["content-encoding"], url).toBe("gzip");
      for (const res of [identity, br, gz]) {
        expect(varies(res), `${url}: Vary`).toBe(true);
        expect(res.headers["content-type"], url).toBe(identity.headers["content-type"]);
        expect(res.headers["cache-control"], url).toBe(identity.headers["cache-control"]);
      }
      // Built at the densest settings: what is sent is the file beside the asset.
      expect(br.rawPayload.equals(readFileSync(join(publicDir, `${url}.br`))), url).toBe(true);
      expect(decoded(br).equals(identity.rawPayload), url).toBe(true);
      expect(decoded(gz).equals(identity.rawPayload), url).toBe(true);
      const tags = [identity, br, gz].map((r) => String(r.headers.etag));
      expect(new Set(tags).size, `${url}: ${tags.join(" ")}`).toBe(3);
      const again = await get(url, BOTH, { "if-none-match": String(br.headers.etag) });
      expect(again.statusCode, url).toBe(304);
      expect(again.headers.etag, url).toBe(br.headers.etag);
      const head = await t.app.inject({ method: "HEAD", url, headers: { "accept-encoding": BOTH } });
      for (const name of ["content-encoding", "etag", "vary", "content-length", "content-type"]) {
        expect(head.headers[name], `${url} HEAD ${name}`).toBe(br.headers[name]);
      }
      expect((await get(url, BOTH, { "if-none-match": String(identity.headers.etag) })).statusCode, url).toBe(200);
    }
  });

  it("sends the images the stylesheets pull in as they are", async () => {
    const css = (await get(manifest["leaflet.css"] ?? "")).body;
    const images = [...css.matchAll(/url\(["']?(\.\/[^)"']+\.png)/g)].map((m) => `/assets/${m[1]?.slice(2)}`);
    expect(images.length).toBeGreaterThan(0);
    for (const url of images) {
      const res = await get(url, BOTH);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toBe("image/png");
      expect(res.headers["content-encoding"], url).toBeUndefined();
      expect(varies(res), url).toBe(false);
    }
  });

  it("sends the OpenAPI description, the site map, an Open311 search and the sitemap with a tag per encoding", async () => {
    for (const url of ["/openapi.yaml", "/.well-known/openapi.yaml", "/openapi.json", "/sitemap.xml"]) {
      await expectTagPerEncoding(url);
    }
    await expectTagPerEncoding("/api/v2/requests.json");
    await expectTagPerEncoding("/api/v2/requests.xml");
  });

  it("sends the Atom feeds, /llms.txt and the service worker compressed", async () => {
    for (const url of ["/reports.atom", "/llms.txt", "/sw.js"]) await expectCompressed(url);
    // A feed's tag, when it has one, is per encoding like every other.
    const feed = await get("/reports.atom", BOTH);
    if (feed.headers.etag) expect(String(feed.headers.etag)).toMatch(/-br"$/);
  });

  it("keeps Open311's own Vary and CORS headers beside Accept-Encoding", async () => {
    const res = await get("/api/v2/requests.json", BOTH);
    expect(res.headers["content-encoding"]).toBe("br");
    const vary = String(res.headers.vary).toLowerCase();
    expect(vary).toContain("x-api-key");
    expect(vary).toContain("accept-encoding");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  it("compresses the not-found page and error answers too", async () => {
    const res = await get("/no/such/page", BOTH);
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(decoded(res).toString()).toContain("</html>");
  });

  it("does not compress the business API twice", async () => {
    for (const url of ["/api/v1/businesses", "/data/businesses-canonical.json"]) {
      const res = await get(url, BOTH);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-encoding"], url).toBe("br");
      expect(String(res.headers.vary).match(/accept-encoding/gi)?.length, url).toBe(1);
      const body = JSON.parse(brotliDecompressSync(res.rawPayload).toString("utf8")) as { "@type"?: string };
      expect(body["@type"], url).toBe("ItemList");
      expect(String(res.headers.etag), url).toMatch(/-br"$/);
      expect(String(res.headers.etag), url).not.toMatch(/-br-br"$/);
      const again = await get(url, BOTH, { "if-none-match": String(res.headers.etag) });
      expect(again.statusCode, url).toBe(304);
      expect(again.headers.etag, url).toBe(res.headers.etag);
    }
  });

  it("leaves photos alone", async () => {
    const res = await get(photoUrl, BOTH);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("image/jpeg");
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(varies(res)).toBe(false);
    const again = await get(photoUrl, BOTH, { "if-none-match": String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(varies(again)).toBe(false);
  });
});

describeEachDb("compression of large and streamed answers", (dialect) => {
  let t: TestApp;
  // 200 KB of text: compressed off the main thread; the same text streamed, with no length known in advance.
  const text = Array.from({ length: 4000 }, (_, i) => `line ${i}: the quick brown fox ${i % 7}\n`).join("");
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      routes(app) {
        app.get("/test/large", (_request, reply) =>
          reply.type("text/plain; charset=utf-8").header("etag", '"large-1"').send(Buffer.from(text)),
        );
        app.get("/test/stream", (_request, reply) =>
          reply.type("text/plain; charset=utf-8").send(Readable.from([text.slice(0, 50_000), text.slice(50_000)])),
        );
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("compresses a large body off the main thread, once per tag, and a stream as a stream", async () => {
    for (const url of ["/test/large", "/test/stream"]) {
      for (const coding of ["br", "gzip"]) {
        const res = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": coding } });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers["content-encoding"], url).toBe(coding);
        expect(decoded(res).toString("utf8"), url).toBe(text);
        expect(res.rawPayload.length, url).toBeLessThan(text.length / 4);
      }
    }
    const first = await t.app.inject({ method: "GET", url: "/test/large", headers: { "accept-encoding": "br" } });
    const again = await t.app.inject({ method: "GET", url: "/test/large", headers: { "accept-encoding": "br" } });
    expect(first.headers.etag).toBe('"large-1-br"');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    const streamed = await t.app.inject({ method: "GET", url: "/test/stream", headers: { "accept-encoding": "br" } });
    expect(streamed.headers["transfer-encoding"]).toBe("chunked");
    const head = await t.app.inject({ method: "HEAD", url: "/test/stream", headers: { "accept-encoding": "br" } });
    expect(head.headers["content-encoding"]).toBe("br");
    expect(head.rawPayload.length).toBe(0);
  });
});

describe("compression settings", () => {
  it("writes every compressible built asset beside a .br and a .gz", () => {
    for (const url of Object.values(manifest)) {
      expect(readFileSync(join(publicDir, `${url}.br`)).length, url).toBeGreaterThan(0);
      expect(readFileSync(join(publicDir, `${url}.gz`)).length, url).toBeGreaterThan(0);
    }
  });
});
