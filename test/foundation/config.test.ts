import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "civic-config-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("configuration", () => {
  it("has working defaults for a first start", () => {
    const config = loadConfig({ DATA_DIR: tempDir() });
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.baseUrl).toBe("http://localhost:3000");
    expect(config.databaseUrl).toBeNull();
    expect(config.smtpUrl).toBeNull();
    expect(config.seedDemo).toBe(true);
    expect(config.logLevel).toBe("info");
    expect(config.village.bounds.south).toBeLessThan(config.village.bounds.north);
  });

  it("serves map tiles from this site by default, and from MAP_TILE_URL directly with MAP_TILE_PROXY=false", () => {
    const proxied = loadConfig({ DATA_DIR: tempDir() });
    expect(proxied.map).toMatchObject({
      proxy: true,
      tileUrl: "/tiles/{z}/{x}/{y}.png",
      upstreamUrl: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
      minZoom: 12,
      maxZoom: 19,
      fetchesPerMinute: 60,
      fetchTimeoutMs: 10_000,
    });
    const direct = loadConfig({
      DATA_DIR: tempDir(),
      MAP_TILE_PROXY: "false",
      MAP_TILE_URL: "https://tiles.example.net/{z}/{x}/{y}.png",
    });
    expect(direct.map).toMatchObject({ proxy: false, tileUrl: "https://tiles.example.net/{z}/{x}/{y}.png" });
    const bad = () =>
      loadConfig({ DATA_DIR: tempDir(), MAP_TILE_PROXY: "maybe", MAP_TILE_MIN_ZOOM: "18", MAP_TILE_MAX_ZOOM: "15" });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/MAP_TILE_PROXY="maybe" must be true or false/);
    expect(bad).toThrow(/MAP_TILE_MIN_ZOOM must not be above MAP_TILE_MAX_ZOOM/);
  });

  it("derives BASE_URL from PORT and strips a trailing slash from an explicit one", () => {
    expect(loadConfig({ DATA_DIR: tempDir(), PORT: "8080" }).baseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ DATA_DIR: tempDir(), BASE_URL: "https://civic.example.org/" }).baseUrl).toBe(
      "https://civic.example.org",
    );
  });

  it("names the default sender after the configured village, quoted when the name needs it", () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).mailFrom).toBe(
      "Wrenford St Mary Community Platform <no-reply@localhost>",
    );
    expect(loadConfig({ DATA_DIR: tempDir(), VILLAGE_NAME: "Little Snoring" }).mailFrom).toBe(
      "Little Snoring Community Platform <no-reply@localhost>",
    );
    expect(
      loadConfig({ DATA_DIR: tempDir(), VILLAGE_NAME: 'Upper "Piddle", Dorset', BASE_URL: "https://civic.example.org" })
        .mailFrom,
    ).toBe('"Upper \\"Piddle\\", Dorset Community Platform" <no-reply@civic.example.org>');
    expect(
      loadConfig({ DATA_DIR: tempDir(), VILLAGE_NAME: "Elsewhere", MAIL_FROM: "Us <us@example.org>" }).mailFrom,
    ).toBe("Us <us@example.org>");
  });

  it("names every offending variable at once and what it expects", () => {
    let error: unknown;
    try {
      loadConfig({
        DATA_DIR: tempDir(),
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        SEED_DEMO: "maybe",
        LOG_LEVEL: "loud",
        LOG_NOT_MODIFIED: "never",
        VILLAGE_BOUNDS: "1,2,3",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    expect(problems).toMatch(/PORT="eighty" must be a whole number from 0 to 65535/);
    expect(problems).toMatch(/DATABASE_URL must be a URL starting with postgres:\/\/ or postgresql:\/\//);
    expect(problems).toMatch(/SEED_DEMO="maybe" must be true or false/);
    expect(problems).toMatch(/LOG_LEVEL="loud" must be one of/);
    expect(problems).toMatch(/LOG_NOT_MODIFIED="never" must be summary or each/);
    expect(problems).toMatch(/VILLAGE_BOUNDS="1,2,3" must be "south,west,north,east"/);
    expect((error as ConfigError).problems).toHaveLength(6);
  });

  it("sends mail in rounds of MAIL_POLL_SECONDS, 5 unless set", () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).mailPollMs).toBe(5_000);
    expect(loadConfig({ DATA_DIR: tempDir(), MAIL_POLL_SECONDS: "1" }).mailPollMs).toBe(1_000);
    expect(() => loadConfig({ DATA_DIR: tempDir(), MAIL_POLL_SECONDS: "0" })).toThrow(/MAIL_POLL_SECONDS/);
  });

  it("rejects a port out of range and a short session secret", () => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), PORT: "70000" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATA_DIR: tempDir(), SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET/);
  });

  it("generates SESSION_SECRET once, keeps it private under DATA_DIR and reuses it", () => {
    const dir = tempDir();
    const first = loadConfig({ DATA_DIR: dir }).sessionSecret;
    const second = loadConfig({ DATA_DIR: dir }).sessionSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(second).toBe(first);
    expect(readFileSync(join(dir, "session-secret"), "utf8").trim()).toBe(first);
    expect(statSync(join(dir, "session-secret")).mode & 0o077).toBe(0);
    expect(loadConfig({ DATA_DIR: tempDir() }).sessionSecret).not.toBe(first);
  });

  it("parses the village area, rate limits and upload limits", () => {
    const c = loadConfig({
      DATA_DIR: tempDir(),
      VILLAGE_BOUNDS: "51.0,-1.5,51.1,-1.4",
      RATE_LIMIT_WRITE_MAX: "5",
      RATE_LIMIT_WINDOW_SECONDS: "30",
      MAX_PHOTOS: "2",
      MAX_PHOTO_MB: "4",
      MAX_CONCURRENT_UPLOADS: "6",
    });
    expect(c.village.bounds).toEqual({ south: 51.0, west: -1.5, north: 51.1, east: -1.4 });
    expect(c.village.centre).toEqual({ lat: 51.05, lng: -1.45 });
    expect(c.rateLimit).toMatchObject({ writeMax: 5, windowMs: 30_000 });
    expect(c.uploads).toEqual({ maxPhotos: 2, maxPhotoBytes: 4 * 1024 * 1024, maxConcurrent: 6, slotWaitMs: 10_000 });
  });

  it("TRUST_PROXY takes a hop count or proxy addresses, never 'trust every hop'", () => {
    const trust = (value: string | undefined) => loadConfig({ DATA_DIR: tempDir(), TRUST_PROXY: value }).trustProxy;
    expect(trust(undefined)).toBe(false);
    expect(trust("false")).toBe(false);
    expect(trust("0")).toBe(false);
    expect(trust("1")).toBe(1);
    expect(trust("2")).toBe(2);
    expect(trust("127.0.0.1, 10.0.0.0/8,::1,fd00::/8")).toEqual(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]);
    expect(trust("Loopback,uniquelocal")).toEqual(["loopback", "uniquelocal"]);
    expect(() => trust("true")).toThrow(/TRUST_PROXY="true" would trust every X-Forwarded-For entry/);
    expect(() => trust("yes")).toThrow(/TRUST_PROXY/);
    expect(() => trust("11")).toThrow(/TRUST_PROXY="11" must be a number of proxy hops from 1 to 10/);
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: tempDir(), TRUST_PROXY: "10.0.0.1,10.0.0.0/33,proxy.local,1.2.3", PORT: "x" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    // Reported with the other problems, naming every bad entry.
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toMatch(/"10\.0\.0\.0\/33", "proxy\.local", "1\.2\.3" is not an IP address/);
  });
});
