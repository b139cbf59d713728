import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { village as demoVillage } from "./demo/village.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface Bounds {
  south: number;
  west: number;
  north: number;
  east: number;
}

/** The whole runtime configuration, parsed once from the environment. */
export interface Config {
  port: number;
  host: string;
  /** Absolute URL without trailing slash. */
  baseUrl: string;
  dataDir: string;
  /** postgres://… when set; otherwise the embedded SQLite database under dataDir. */
  databaseUrl: string | null;
  smtpUrl: string | null;
  mailFrom: string;
  seedDemo: boolean;
  logLevel: LogLevel;
  sessionSecret: string;
  trustProxy: boolean;
  rateLimit: {
    /** Requests per window per client address for form posts and Open311 writes. */
    writeMax: number;
    /** Requests per window per client address (or API key) for Open311 reads. */
    readMax: number;
    windowMs: number;
  };
  village: {
    name: string;
    councilName: string;
    contactEmail: string;
    centre: { lat: number; lng: number };
    bounds: Bounds;
  };
  map: {
    /** Leaflet tile URL template; its host is allowed in the Content-Security-Policy. */
    tileUrl: string;
    tileAttribution: string;
  };
  uploads: {
    maxPhotos: number;
    maxPhotoBytes: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads the configuration from environment variables. Every problem is collected and reported at once in a
 * ConfigError, so an operator fixes them all in one go. When SESSION_SECRET is unset, a secret is generated once
 * and kept in DATA_DIR/session-secret.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}="${raw}" must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    problems.push(`${name}="${raw}" must be true or false`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error("protocol");
      return raw;
    } catch {
      problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`);
      return undefined;
    }
  };

  const port = int("PORT", 3000, 0, 65535);
  const host = str("HOST") ?? "127.0.0.1";
  let baseUrl = url("BASE_URL", ["http:", "https:"]) ?? `http://localhost:${port}`;
  baseUrl = baseUrl.replace(/\/+$/, "");
  const dataDir = resolve(str("DATA_DIR") ?? "./data");
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]) ?? null;
  const smtpUrl = url("SMTP_URL", ["smtp:", "smtps:"]) ?? null;
  const mailFrom = str("MAIL_FROM") ?? `${demoVillage.name} Community Platform <no-reply@${hostOf(baseUrl)}>`;
  if (!/@/.test(mailFrom)) problems.push(`MAIL_FROM="${mailFrom}" must contain an email address`);
  const seedDemo = bool("SEED_DEMO", true);
  const logLevelRaw = (str("LOG_LEVEL") ?? "info").toLowerCase();
  let logLevel: LogLevel = "info";
  if ((LOG_LEVELS as readonly string[]).includes(logLevelRaw)) logLevel = logLevelRaw as LogLevel;
  else problems.push(`LOG_LEVEL="${logLevelRaw}" must be one of ${LOG_LEVELS.join(", ")}`);
  const trustProxy = bool("TRUST_PROXY", false);

  const writeMax = int("RATE_LIMIT_WRITE_MAX", 20, 1, 1_000_000);
  const readMax = int("RATE_LIMIT_READ_MAX", 600, 1, 10_000_000);
  const windowMs = int("RATE_LIMIT_WINDOW_SECONDS", 60, 1, 86_400) * 1000;

  const bounds = parseBounds(str("VILLAGE_BOUNDS"), problems) ?? demoVillage.bounds;
  const centre = {
    lat: (bounds.south + bounds.north) / 2,
    lng: (bounds.west + bounds.east) / 2,
  };
  const tileUrl = str("MAP_TILE_URL") ?? "https://tile.openstreetmap.org/{z}/{x}/{y}.png";
  if (!/^https?:\/\/[^/]+\//.test(tileUrl)) problems.push("MAP_TILE_URL must be an http(s) URL template");

  const maxPhotos = int("MAX_PHOTOS", 3, 0, 10);
  const maxPhotoBytes = int("MAX_PHOTO_MB", 10, 1, 50) * 1024 * 1024;

  const contactEmail = str("CONTACT_EMAIL") ?? demoVillage.contactEmail;

  let sessionSecret = str("SESSION_SECRET");
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    problems.push("SESSION_SECRET must be at least 32 characters (leave it unset to generate one)");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  sessionSecret ??= readOrCreateSecret(dataDir);

  return {
    port,
    host,
    baseUrl,
    dataDir,
    databaseUrl,
    smtpUrl,
    mailFrom,
    seedDemo,
    logLevel,
    sessionSecret,
    trustProxy,
    rateLimit: { writeMax, readMax, windowMs },
    village: {
      name: str("VILLAGE_NAME") ?? demoVillage.name,
      councilName: str("COUNCIL_NAME") ?? demoVillage.councilName,
      contactEmail,
      centre: str("VILLAGE_BOUNDS") ? centre : demoVillage.centre,
      bounds,
    },
    map: {
      tileUrl,
      tileAttribution:
        str("MAP_TILE_ATTRIBUTION") ??
        '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    },
    uploads: { maxPhotos, maxPhotoBytes },
  };
}

function hostOf(url: string): string {
  return new URL(url).hostname;
}

function parseBounds(raw: string | undefined, problems: string[]): Bounds | undefined {
  if (raw === undefined) return undefined;
  const parts = raw.split(",").map((p) => Number(p.trim()));
  const [south, west, north, east] = parts;
  if (
    parts.length !== 4 ||
    parts.some((n) => !Number.isFinite(n)) ||
    south === undefined ||
    west === undefined ||
    north === undefined ||
    east === undefined ||
    south >= north ||
    west >= east ||
    south < -90 ||
    north > 90 ||
    west < -180 ||
    east > 180
  ) {
    problems.push(`VILLAGE_BOUNDS="${raw}" must be "south,west,north,east" in decimal degrees`);
    return undefined;
  }
  return { south, west, north, east };
}

function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, "session-secret");
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The tile server's origin, allowed in the Content-Security-Policy img-src. */
export function tileOrigin(config: Config): string {
  const u = new URL(config.map.tileUrl.replace(/\{[a-z]\}/g, "a"));
  return `${u.protocol}//${u.host.replace(/^a\./, "*.")}`;
}
