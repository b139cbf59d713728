import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp, testConfig } from "../../test/helpers/app.js";
import { buildApp } from "../app.js";
import { DEFAULT_VILLAGE } from "../config.js";

/** The tile holding a point at a zoom, computed here on its own (the Web Mercator "slippy map" formula). */
function tileAt(lat: number, lng: number, z: number): { x: number; y: number } {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return {
    x: Math.floor(((lng + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n),
  };
}

const centre = DEFAULT_VILLAGE.centre;
const at = (z: number, dx = 0, dy = 0) => {
  const { x, y } = tileAt(centre.lat, centre.lng, z);
  return `/tiles/${z}/${x + dx}/${y + dy}.png`;
};

type Mode = "ok" | "other" | "down" | "html" | "big" | "slow";

/** A tile server on loopback: answers as `mode` says and keeps every request it was sent. */
async function startUpstream(): Promise<{
  server: Server;
  url: string;
  requests: IncomingMessage[];
  mode: Mode;
  png: Buffer;
  otherPng: Buffer;
}> {
  const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#dfe8d8" } })
    .png()
    .toBuffer();
  const otherPng = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#aabbcc" } })
    .png()
    .toBuffer();
  const state = {
    server: undefined as unknown as Server,
    url: "",
    requests: [] as IncomingMessage[],
    mode: "ok" as Mode,
    png,
    otherPng,
  };
  state.server = createServer((req, res) => {
    state.requests.push(req);
    switch (state.mode) {
      case "ok":
      case "other":
        // A little slow, so that requests for the same tile arrive while the first fetch is under way.
        setTimeout(() => {
          res.writeHead(200, { "content-type": "image/png" });
          res.end(state.mode === "ok" ? png : otherPng);
        }, 50);
        return;
      case "down":
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("broken");
        return;
      case "html":
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>not a tile</html>");
        return;
      case "big":
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.alloc(2 * 1024 * 1024, 1));
        return;
      case "slow":
        // Never answers within the proxy's timeout.
        setTimeout(() => res.destroy(), 5000);
        return;
    }
  });
  await new Promise<void>((resolve) => state.server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/osm/{z}/{x}/{y}.png`;
  return state;
}

describeEachDb("the map tile proxy", (dialect) => {
  let t: TestApp;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let env: Record<string, string>;
  let clock = Date.parse("2026-11-29T09:00:00Z");
  const DAY = 24 * 60 * 60 * 1000;
  /** Moves to the start of the next minute: a new window of the upstream cap. */
  const nextMinute = () => {
    clock = (Math.floor(clock / 60_000) + 1) * 60_000;
  };

  beforeAll(async () => {
    upstream = await startUpstream();
    env = {
      MAP_TILE_URL: upstream.url,
      MAP_TILE_FETCHES_PER_MINUTE: "5",
      MAP_TILE_TIMEOUT_SECONDS: "1",
      BASE_URL: "https://wrenford.example.org",
      CONTACT_EMAIL: "tiles-contact@example.org",
    };
    t = await createTestApp(dialect, { seed: true, now: () => new Date(clock), env });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => upstream?.server.close(resolve));
  });

  it("serves a village tile fetched from the upstream with a User-Agent, then from its store", async () => {
    nextMinute();
    upstream.mode = "ok";
    const before = upstream.requests.length;
    const first = await t.app.inject(at(16));
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-type"]).toBe("image/png");
    expect(first.rawPayload.equals(upstream.png)).toBe(true);
    const cacheControl = String(first.headers["cache-control"]);
    expect(cacheControl).toMatch(/\bpublic\b/);
    expect(Number(/max-age=(\d+)/.exec(cacheControl)?.[1])).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(upstream.requests.length).toBe(before + 1);
    const sent = upstream.requests.at(-1)!;
    const { x, y } = tileAt(centre.lat, centre.lng, 16);
    expect(sent.url).toBe(`/osm/16/${x}/${y}.png`);
    const agent = String(sent.headers["user-agent"]);
    expect(agent).toContain("community-civic-platform");
    expect(agent).toContain("https://wrenford.example.org");
    expect(agent).toContain("tiles-contact@example.org");

    const second = await t.app.inject(at(16));
    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(upstream.png)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(upstream.requests.length).toBe(before + 1);

    const conditional = await t.app.inject({ url: at(16), headers: { "if-none-match": String(first.headers.etag) } });
    expect(conditional.statusCode).toBe(304);
    expect(conditional.body).toBe("");
    expect(upstream.requests.length).toBe(before + 1);
  });

  it("fetches a tile asked for by many at once from the upstream once", async () => {
    nextMinute();
    upstream.mode = "ok";
    const before = upstream.requests.length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.app.inject(at(17, 1, 1))));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it("refuses zooms and tiles outside the village's area without asking the upstream", async () => {
    nextMinute();
    const before = upstream.requests.length;
    for (const url of [
      "/tiles/16/0/0.png",
      at(16, 500, 0),
      at(16, 0, -500),
      at(5),
      at(11),
      at(20),
      at(22),
      "/tiles/30/0/0.png",
    ]) {
      const res = await t.app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers["content-type"], url).toMatch(/^text\/html/);
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("answers hostile addresses with 400 or 404, never a server error, without asking the upstream", async () => {
    nextMinute();
    const before = upstream.requests.length;
    const { x, y } = tileAt(centre.lat, centre.lng, 16);
    for (const url of [
      `/tiles/16/${x}.5/${y}.png`,
      `/tiles/16/-${x}/${y}.png`,
      `/tiles/16/NaN/${y}.png`,
      `/tiles/16/${x}/Infinity.png`,
      `/tiles/NaN/${x}/${y}.png`,
      `/tiles/16.0/${x}/${y}.png`,
      `/tiles/1e1/${x}/${y}.png`,
      `/tiles/16/0x${x.toString(16)}/${y}.png`,
      `/tiles/16/${x}/${y}`,
      `/tiles/16/${x}/${y}.jpg`,
      `/tiles/16/${x}/${y}.png.png`,
      `/tiles/16/${x}/${"9".repeat(40)}.png`,
      `/tiles/${"9".repeat(40)}/${x}/${y}.png`,
      `/tiles/16/${x}/%00.png`,
      `/tiles/16/ ${x}/${y}.png`,
      `/tiles/16/${x}/${y}.png?z=1`,
      `/tiles/-16/${x}/${y}.png`,
      `/tiles/16/${x}/+${y}.png`,
      `/tiles/16/${x}/${"1".repeat(300)}.png`,
    ]) {
      const res = await t.app.inject(url);
      if (url.endsWith("?z=1")) {
        // A query on a tile's address is ignored, as on any page.
        expect(res.statusCode, url).toBe(200);
        continue;
      }
      expect([400, 404, 414], url).toContain(res.statusCode);
    }
    // The one request that was a real tile was already in the store.
    expect(upstream.requests.length).toBe(before);
  });

  it("keeps a tile a week, then fetches it again; keeps the old one while the upstream fails", async () => {
    nextMinute();
    upstream.mode = "ok";
    const url = at(15, 1, 0);
    const first = await t.app.inject(url);
    expect(first.statusCode).toBe(200);
    const fetched = upstream.requests.length;

    clock += 6 * DAY;
    nextMinute();
    upstream.mode = "other";
    const within = await t.app.inject(url);
    expect(within.rawPayload.equals(upstream.png)).toBe(true);
    expect(upstream.requests.length).toBe(fetched);

    clock += 2 * DAY;
    nextMinute();
    const renewed = await t.app.inject(url);
    expect(renewed.statusCode).toBe(200);
    expect(renewed.rawPayload.equals(upstream.otherPng)).toBe(true);
    expect(renewed.headers.etag).not.toBe(first.headers.etag);
    expect(upstream.requests.length).toBe(fetched + 1);

    clock += 8 * DAY;
    nextMinute();
    for (const mode of ["down", "html", "big", "slow"] as const) {
      upstream.mode = mode;
      const stale = await t.app.inject(url);
      expect(stale.statusCode, mode).toBe(200);
      expect(stale.rawPayload.equals(upstream.otherPng), mode).toBe(true);
      // Asked again soon, in case the upstream is back.
      expect(Number(/max-age=(\d+)/.exec(String(stale.headers["cache-control"]))?.[1]), mode).toBeLessThan(
        7 * 24 * 3600,
      );
    }
  }, 20_000);

  it("answers 502 or 504 when the upstream fails and no copy is kept", async () => {
    const cases: [Mode, number][] = [
      ["down", 502],
      ["html", 502],
      ["big", 502],
      ["slow", 504],
    ];
    let dy = 0;
    for (const [mode, status] of cases) {
      nextMinute();
      upstream.mode = mode;
      const res = await t.app.inject(at(18, 3, ++dy));
      expect(res.statusCode, mode).toBe(status);
      expect(res.headers["content-type"], mode).toMatch(/^text\/html/);
      expect(res.headers["cache-control"], mode).not.toMatch(/public|max-age/);
      expect(res.body, mode).toContain("map");
    }
    nextMinute();
    upstream.mode = "ok";
    // Nothing broken was kept: the tile is fetched and served once the upstream is back.
    const back = await t.app.inject(at(18, 3, 1));
    expect(back.statusCode).toBe(200);
    expect(back.rawPayload.equals(upstream.png)).toBe(true);
  }, 20_000);

  it("caps upstream fetches per minute; kept tiles are still served", async () => {
    nextMinute();
    upstream.mode = "ok";
    const before = upstream.requests.length;
    for (let i = 0; i < 5; i++) expect((await t.app.inject(at(19, 10 + i, 0))).statusCode).toBe(200);
    expect(upstream.requests.length).toBe(before + 5);
    const capped = await t.app.inject(at(19, 20, 0));
    expect(capped.statusCode).toBe(503);
    expect(Number(capped.headers["retry-after"])).toBeGreaterThan(0);
    expect(upstream.requests.length).toBe(before + 5);
    expect((await t.app.inject(at(19, 10, 0))).statusCode).toBe(200);
    expect((await t.app.inject(at(16))).statusCode).toBe(200);
    nextMinute();
    expect((await t.app.inject(at(19, 20, 0))).statusCode).toBe(200);
    expect(upstream.requests.length).toBe(before + 6);
  });

  it("shares kept tiles and the fetch cap with another instance on the same database and media store", async () => {
    nextMinute();
    upstream.mode = "ok";
    const second = await buildApp(
      testConfig(t.db.dataDir, { ...env, ...(t.db.url ? { DATABASE_URL: t.db.url } : {}) }),
      {
        logger: false,
        database: t.db.reopen(),
        now: () => new Date(clock),
      },
    );
    try {
      await second.ready();
      const before = upstream.requests.length;
      expect((await t.app.inject(at(19, 30, 1))).statusCode).toBe(200);
      const kept = await second.inject(at(19, 30, 1));
      expect(kept.statusCode).toBe(200);
      expect(kept.rawPayload.equals(upstream.png)).toBe(true);
      expect(upstream.requests.length).toBe(before + 1);
      // Three fetches here and two there use up the minute's five.
      for (let i = 1; i < 3; i++) expect((await t.app.inject(at(19, 30 + i, 1))).statusCode).toBe(200);
      for (let i = 0; i < 2; i++) expect((await second.inject(at(19, 40 + i, 1))).statusCode).toBe(200);
      expect((await second.inject(at(19, 50, 1))).statusCode).toBe(503);
      expect((await t.app.inject(at(19, 51, 1))).statusCode).toBe(503);
      // What one instance fetched, the other serves.
      expect((await second.inject(at(19, 32, 1))).statusCode).toBe(200);
      expect(upstream.requests.slice(before).map((r) => r.url)).toHaveLength(5);
    } finally {
      await second.close();
    }
  });

  it("lets pages load tiles from this site only: the CSP allows no other image origin", async () => {
    const page = await t.app.inject("/about");
    const csp = String(page.headers["content-security-policy"]);
    const imgSrc = csp.split(";").find((d) => d.trim().startsWith("img-src"));
    expect(imgSrc?.trim()).toBe("img-src 'self' data: blob:");
    expect(csp).not.toContain("127.0.0.1");
    const form = await t.app.inject("/report?category=pothole");
    expect(form.body).toContain('data-tile-url="/tiles/{z}/{x}/{y}.png"');
    expect(form.body).not.toContain(upstream.url);
    const privacy = await t.app.inject("/privacy");
    expect(privacy.body).toContain("The map images, called tiles, come from this website.");
    expect(privacy.body).toContain("it never receives your IP address");
  });

  it("describes the village's tiles the installed app keeps for offline use", async () => {
    const res = await t.app.inject("/tiles/offline.json");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const plan = res.json<{
      version: string;
      count: number;
      maxAgeSeconds: number;
      zooms: { z: number; minX: number; maxX: number; minY: number; maxY: number }[];
    }>();
    expect(plan.version).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    expect(plan.maxAgeSeconds).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(plan.zooms.map((r) => r.z)).toEqual([13, 14, 15, 16, 17]);
    const count = plan.zooms.reduce((n, r) => n + (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1), 0);
    expect(plan.count).toBe(count);
    expect(count).toBeLessThanOrEqual(1000);
    // The form opens on the village's centre at zoom 16: that tile is kept.
    const { x, y } = tileAt(centre.lat, centre.lng, 16);
    const z16 = plan.zooms.find((r) => r.z === 16)!;
    expect(x >= z16.minX && x <= z16.maxX && y >= z16.minY && y <= z16.maxY).toBe(true);
    // Every tile of the plan is one the proxy serves.
    nextMinute();
    upstream.mode = "ok";
    const z13 = plan.zooms[0]!;
    expect((await t.app.inject(`/tiles/13/${z13.minX}/${z13.minY}.png`)).statusCode).toBe(200);
    expect((await t.app.inject(`/tiles/17/${plan.zooms[4]!.maxX}/${plan.zooms[4]!.maxY}.png`)).statusCode).toBe(200);
  });
});

describe("with the tile proxy off", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("sqlite", {
      seed: true,
      env: { MAP_TILE_PROXY: "false", MAP_TILE_URL: "https://tiles.example.net/{z}/{x}/{y}.png" },
    });
  });
  afterAll(async () => t?.close());

  it("pages load the configured tile server directly, which the CSP allows; /tiles is not served", async () => {
    const page = await t.app.inject("/about");
    expect(String(page.headers["content-security-policy"])).toContain(
      "img-src 'self' data: blob: https://tiles.example.net",
    );
    const form = await t.app.inject("/report?category=pothole");
    expect(form.body).toContain('data-tile-url="https://tiles.example.net/{z}/{x}/{y}.png"');
    const { x, y } = tileAt(centre.lat, centre.lng, 16);
    expect((await t.app.inject(`/tiles/16/${x}/${y}.png`)).statusCode).toBe(404);
    expect((await t.app.inject("/tiles/offline.json")).statusCode).toBe(404);
    const privacy = await t.app.inject("/privacy");
    expect(privacy.body).toContain("from a separate map tile server (tiles.example.net)");
    expect(privacy.body).toContain("that server can see your IP address");
  });
});

describe("with a media store that cannot keep tiles", () => {
  let t: TestApp;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  beforeAll(async () => {
    upstream = await startUpstream();
    t = await createTestApp("sqlite", { env: { MAP_TILE_URL: upstream.url } });
    // A file where the tiles' folder would go: every write there fails.
    mkdirSync(join(t.db.dataDir, "media"), { recursive: true });
    writeFileSync(join(t.db.dataDir, "media", "tiles"), "in the way");
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => upstream?.server.close(resolve));
  });

  it("still serves the tile it fetched, and fetches it again next time", async () => {
    for (const times of [1, 2]) {
      const res = await t.app.inject(at(16));
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(upstream.png)).toBe(true);
      expect(upstream.requests).toHaveLength(times);
    }
  });
});
