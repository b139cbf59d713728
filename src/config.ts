import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface Bounds {
  south: number;
  west: number;
  north: number;
  east: number;
}

/**
 * Who the platform is for when VILLAGE_NAME, COUNCIL_NAME, CONTACT_EMAIL and VILLAGE_BOUNDS are not set: the
 * fictional demo village that `npm start` loads into an empty database (src/demo/village.ts takes its identity from
 * here, so the defaults and the demo data agree without the configuration reading the demo fixture).
 */
export const DEFAULT_VILLAGE = {
  name: "Wrenford St Mary",
  councilName: "Wrenvale District Council",
  contactEmail: "wrenford-online@example.org",
  centre: { lat: 50.9862, lng: -2.0437 },
  /** About 3 km east–west by 2.5 km north–south around the centre. */
  bounds: { south: 50.975, west: -2.0651, north: 50.9974, east: -2.0223 },
} as const;

/** An S3-compatible object store for media (MEDIA_STORE=s3). */
export interface S3Settings {
  store: "s3";
  /** null: AWS S3 itself. */
  endpoint: string | null;
  bucket: string;
  region: string;
  /** Both null: the AWS SDK's usual credential chain (environment, instance role, …). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Path-style addressing (endpoint/bucket/key), which MinIO, Garage and most self-hosted stores need. */
  forcePathStyle: boolean;
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
  /** How often the outbox worker looks for mail to send (MAIL_POLL_SECONDS, default 5). */
  mailPollMs: number;
  seedDemo: boolean;
  logLevel: LogLevel;
  /**
   * LOG_NOT_MODIFIED: `summary` (default) counts 304 answers per method and path and logs the counts once a minute;
   * `each` gives every 304 its own access line, like every other answer.
   */
  logNotModified: "summary" | "each";
  sessionSecret: string;
  /**
   * True when SESSION_SECRET was given. Otherwise `sessionSecret` is only this DATA_DIR's candidate: the app uses
   * the secret kept in the database (the first instance's candidate), so instances sharing a database agree.
   */
  sessionSecretFromEnv: boolean;
  /**
   * Which proxies' X-Forwarded-For entries to believe (Fastify's `trustProxy`): false (none: the client is the
   * socket's peer), a number of hops, or proxy addresses and CIDR ranges. Never "every hop".
   */
  trustProxy: false | number | string[];
  /** On SIGTERM, how long /readyz answers 503 before the listener closes (DRAIN_SECONDS, default 0). */
  drainMs: number;
  /**
   * Bytes of Open311 search answers each process keeps to serve again while no public data changes
   * (OPEN311_CACHE_MB, default 32; 0 turns it off).
   */
  open311CacheBytes: number;
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
    /**
     * The tile URL template the browser's maps load: this site's own `/tiles/{z}/{x}/{y}.png` while the tile proxy
     * is on, else `upstreamUrl` itself (whose origin the Content-Security-Policy then allows).
     */
    tileUrl: string;
    tileAttribution: string;
    /** MAP_TILE_URL: where tiles come from, fetched by this server (proxy on) or by the browser (proxy off). */
    upstreamUrl: string;
    /** MAP_TILE_PROXY (default true): the maps load tiles from this site, which fetches and keeps them. */
    proxy: boolean;
    /** The zooms the proxy serves (MAP_TILE_MIN_ZOOM, MAP_TILE_MAX_ZOOM). */
    minZoom: number;
    maxZoom: number;
    /**
     * The zooms the browser's maps may load tiles at, "MIN-MAX" (their `data-tile-zooms`), while the proxy is on: it
     * serves no other. Undefined when the browser loads the operator's own tile server, whose zooms we do not know.
     */
    zooms: string | undefined;
    /** Tiles fetched from the upstream per minute, by all instances together (MAP_TILE_FETCHES_PER_MINUTE). */
    fetchesPerMinute: number;
    /** How long one upstream fetch may take, answer and body (MAP_TILE_TIMEOUT_SECONDS). */
    fetchTimeoutMs: number;
  };
  uploads: {
    /** Uploads read at once per process; more wait for a slot. */
    maxConcurrent: number;
    /** How long an upload waits for a slot before it is answered 503 with Retry-After. */
    slotWaitMs: number;
    maxPhotos: number;
    maxPhotoBytes: number;
  };
  /** Where photos are kept: DATA_DIR/media (default) or an S3-compatible bucket. */
  media: { store: "local" } | S3Settings;
  /** Slow clients: how long a connection may take to send its request, and how slowly an upload may arrive. */
  timeouts: {
    /** Time to receive a whole request, headers and body (Node's requestTimeout). */
    requestMs: number;
    /** Time to receive a request's headers (Node's headersTimeout). */
    headersMs: number;
    /** An idle keep-alive connection is closed after this (Node's keepAliveTimeout). */
    keepAliveMs: number;
    /**
     * A connection on which nothing moves either way for this long is closed (the socket timeout), e.g. a client
     * that stops reading a download: the download's export slot is freed.
     */
    idleMs: number;
    /** An upload must send at least this many bytes a second on average over every `uploadWindowMs`... */
    uploadMinBytesPerSecond: number;
    /** ...or it is aborted, its slot freed and its temporary file removed. */
    uploadWindowMs: number;
  };
  /** Personal-data downloads (zip archives) streamed at once per process; one more is answered 503. */
  exports: { maxConcurrent: number };
  /** Forwarding reports to council departments (issue 37). */
  forwarding: {
    /**
     * The secret council API keys are sealed with (src/core/sealed.ts): FORWARDING_SECRET, else SESSION_SECRET when
     * it is set in the environment; null when neither is (a generated session secret lives in the database).
     */
    secret: string | null;
    /** How long one request to a council may take, answer and body (FORWARDING_TIMEOUT_SECONDS, default 10). */
    timeoutMs: number;
    /** How often the Open311 sender looks for due forwardings (FORWARDING_INTERVAL_SECONDS, default 30). */
    intervalMs: number;
    /** How often each Open311 council is asked for its answers to forwarded reports (OPEN311_POLL_SECONDS, default 300). */
    pollIntervalMs: number;
    /**
     * FORWARDING_ALLOW_PRIVATE_ADDRESSES (default false): allow endpoints on loopback and private addresses. Only
     * for tests and a council on the same private network.
     */
    allowPrivateAddresses: boolean;
  };
  moderation: {
    /** Independent "Report this" flaggers (see FLAGGER_MIN_AGE_DAYS) after which an item is hidden until reviewed. */
    autoHideFlags: number;
    /** Upheld strikes within 90 days after which an account is suspended automatically. */
    suspendAfterStrikes: number;
  };
  /**
   * "Is it fixed?" (QUESTIONNAIRE_AFTER_DAYS, default 28): days after a report's last public change (or its making)
   * before its reporter is asked whether the problem is fixed, while it is still open or after staff marked it fixed.
   */
  questionnaireAfterDays: number;
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
 * and kept in DATA_DIR/session-secret; it is only a candidate: buildApp uses the one kept in the database.
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
  const villageName = str("VILLAGE_NAME") ?? DEFAULT_VILLAGE.name;
  const mailFrom =
    str("MAIL_FROM") ?? `${displayName(`${villageName} Community Platform`)} <no-reply@${hostOf(baseUrl)}>`;
  if (!/@/.test(mailFrom)) problems.push(`MAIL_FROM="${mailFrom}" must contain an email address`);
  const mailPollMs = int("MAIL_POLL_SECONDS", 5, 1, 3600) * 1000;
  const seedDemo = bool("SEED_DEMO", true);
  const logLevelRaw = (str("LOG_LEVEL") ?? "info").toLowerCase();
  let logLevel: LogLevel = "info";
  if ((LOG_LEVELS as readonly string[]).includes(logLevelRaw)) logLevel = logLevelRaw as LogLevel;
  else problems.push(`LOG_LEVEL="${logLevelRaw}" must be one of ${LOG_LEVELS.join(", ")}`);
  const logNotModifiedRaw = (str("LOG_NOT_MODIFIED") ?? "summary").toLowerCase();
  let logNotModified: Config["logNotModified"] = "summary";
  if (logNotModifiedRaw === "summary" || logNotModifiedRaw === "each") logNotModified = logNotModifiedRaw;
  else problems.push(`LOG_NOT_MODIFIED="${logNotModifiedRaw}" must be summary or each`);
  const trustProxy = parseTrustProxy(str("TRUST_PROXY"), problems);
  const drainMs = int("DRAIN_SECONDS", 0, 0, 300) * 1000;
  const open311CacheBytes = int("OPEN311_CACHE_MB", 32, 0, 4096) * 1024 * 1024;

  const writeMax = int("RATE_LIMIT_WRITE_MAX", 20, 1, 1_000_000);
  const readMax = int("RATE_LIMIT_READ_MAX", 600, 1, 10_000_000);
  const windowMs = int("RATE_LIMIT_WINDOW_SECONDS", 60, 1, 86_400) * 1000;

  const bounds = parseBounds(str("VILLAGE_BOUNDS"), problems) ?? DEFAULT_VILLAGE.bounds;
  const centre = {
    lat: (bounds.south + bounds.north) / 2,
    lng: (bounds.west + bounds.east) / 2,
  };
  const upstreamUrl = str("MAP_TILE_URL") ?? "https://tile.openstreetmap.org/{z}/{x}/{y}.png";
  if (!/^https?:\/\/[^/]+\//.test(upstreamUrl)) problems.push("MAP_TILE_URL must be an http(s) URL template");
  const tileProxy = bool("MAP_TILE_PROXY", true);
  const tileMinZoom = int("MAP_TILE_MIN_ZOOM", 12, 0, 22);
  const tileMaxZoom = int("MAP_TILE_MAX_ZOOM", 19, 0, 22);
  if (tileMinZoom > tileMaxZoom) problems.push("MAP_TILE_MIN_ZOOM must not be above MAP_TILE_MAX_ZOOM");
  const tileFetchesPerMinute = int("MAP_TILE_FETCHES_PER_MINUTE", 60, 1, 100_000);
  const tileFetchTimeoutMs = int("MAP_TILE_TIMEOUT_SECONDS", 10, 1, 120) * 1000;

  const maxPhotos = int("MAX_PHOTOS", 3, 0, 10);
  const maxPhotoBytes = int("MAX_PHOTO_MB", 10, 1, 50) * 1024 * 1024;
  const maxConcurrentUploads = int("MAX_CONCURRENT_UPLOADS", 4, 1, 64);
  const uploadWaitMs = int("UPLOAD_WAIT_SECONDS", 10, 0, 60) * 1000;
  const timeouts = {
    requestMs: int("REQUEST_TIMEOUT_SECONDS", 300, 1, 3600) * 1000,
    headersMs: int("HEADERS_TIMEOUT_SECONDS", 20, 1, 600) * 1000,
    keepAliveMs: int("KEEP_ALIVE_SECONDS", 72, 1, 3600) * 1000,
    idleMs: int("CONNECTION_IDLE_SECONDS", 120, 1, 3600) * 1000,
    uploadMinBytesPerSecond: int("UPLOAD_MIN_BYTES_PER_SECOND", 1024, 0, 10 * 1024 * 1024),
    uploadWindowMs: int("UPLOAD_RATE_WINDOW_SECONDS", 10, 1, 600) * 1000,
  };
  const maxConcurrentExports = int("MAX_CONCURRENT_EXPORTS", 2, 1, 16);

  const autoHideFlags = int("AUTO_HIDE_FLAGS", 3, 1, 1000);
  const suspendAfterStrikes = int("SUSPEND_AFTER_STRIKES", 3, 1, 1000);
  const questionnaireAfterDays = int("QUESTIONNAIRE_AFTER_DAYS", 28, 1, 365);

  const contactEmail = str("CONTACT_EMAIL") ?? DEFAULT_VILLAGE.contactEmail;
  const media = parseMediaStore(str, url, bool, problems);

  let sessionSecret = str("SESSION_SECRET");
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    problems.push("SESSION_SECRET must be at least 32 characters (leave it unset to generate one)");
  }
  const forwardingSecret = str("FORWARDING_SECRET");
  if (forwardingSecret !== undefined && forwardingSecret.length < 32) {
    problems.push("FORWARDING_SECRET must be at least 32 characters");
  }
  const forwarding = {
    secret: forwardingSecret ?? sessionSecret ?? null,
    timeoutMs: int("FORWARDING_TIMEOUT_SECONDS", 10, 1, 120) * 1000,
    intervalMs: int("FORWARDING_INTERVAL_SECONDS", 30, 1, 3600) * 1000,
    pollIntervalMs: int("OPEN311_POLL_SECONDS", 300, 1, 86400) * 1000,
    allowPrivateAddresses: bool("FORWARDING_ALLOW_PRIVATE_ADDRESSES", false),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  const sessionSecretFromEnv = sessionSecret !== undefined;
  sessionSecret ??= readOrCreateSecret(dataDir);

  return {
    port,
    host,
    baseUrl,
    dataDir,
    databaseUrl,
    smtpUrl,
    mailFrom,
    mailPollMs,
    seedDemo,
    logLevel,
    logNotModified,
    sessionSecret,
    sessionSecretFromEnv,
    trustProxy,
    drainMs,
    open311CacheBytes,
    rateLimit: { writeMax, readMax, windowMs },
    village: {
      name: villageName,
      councilName: str("COUNCIL_NAME") ?? DEFAULT_VILLAGE.councilName,
      contactEmail,
      centre: str("VILLAGE_BOUNDS") ? centre : DEFAULT_VILLAGE.centre,
      bounds,
    },
    map: {
      tileUrl: tileProxy ? PROXIED_TILE_URL : upstreamUrl,
      upstreamUrl,
      proxy: tileProxy,
      minZoom: tileMinZoom,
      maxZoom: tileMaxZoom,
      zooms: tileProxy ? `${tileMinZoom}-${tileMaxZoom}` : undefined,
      fetchesPerMinute: tileFetchesPerMinute,
      fetchTimeoutMs: tileFetchTimeoutMs,
      tileAttribution:
        str("MAP_TILE_ATTRIBUTION") ??
        '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    },
    uploads: { maxPhotos, maxPhotoBytes, maxConcurrent: maxConcurrentUploads, slotWaitMs: uploadWaitMs },
    media,
    timeouts,
    exports: { maxConcurrent: maxConcurrentExports },
    forwarding,
    moderation: { autoHideFlags, suspendAfterStrikes },
    questionnaireAfterDays,
  };
}

/** MEDIA_STORE=local (default) or s3 with S3_BUCKET, S3_ENDPOINT, S3_REGION, credentials and S3_FORCE_PATH_STYLE. */
function parseMediaStore(
  str: (name: string) => string | undefined,
  url: (name: string, protocols: string[]) => string | undefined,
  bool: (name: string, fallback: boolean) => boolean,
  problems: string[],
): Config["media"] {
  const store = (str("MEDIA_STORE") ?? "local").toLowerCase();
  if (store === "local") return { store: "local" };
  if (store !== "s3") {
    problems.push(`MEDIA_STORE="${store}" must be local or s3`);
    return { store: "local" };
  }
  const bucket = str("S3_BUCKET");
  if (bucket === undefined) problems.push("S3_BUCKET is required when MEDIA_STORE=s3");
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(`S3_BUCKET="${bucket}" is not a valid bucket name (3–63 lower-case letters, digits, dots, hyphens)`);
  }
  const accessKeyId = str("S3_ACCESS_KEY_ID") ?? null;
  const secretAccessKey = str("S3_SECRET_ACCESS_KEY") ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    problems.push(
      "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both, or neither to use the AWS SDK's own",
    );
  }
  return {
    store: "s3",
    endpoint: url("S3_ENDPOINT", ["http:", "https:"]) ?? null,
    bucket: bucket ?? "",
    region: str("S3_REGION") ?? "us-east-1",
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool("S3_FORCE_PATH_STYLE", false),
  };
}

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * TRUST_PROXY: unset, `false`/`0`/`no`/`off` → trust no proxy; a whole number 1–10 → that many proxy hops in front
 * of the app; otherwise a comma-separated list of proxy addresses, CIDR ranges or the names `loopback`, `linklocal`,
 * `uniquelocal`. `true` is refused: it would believe every X-Forwarded-For entry, which any client can write.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): Config["trustProxy"] {
  if (raw === undefined || /^(false|0|no|off)$/i.test(raw)) return false;
  if (/^\d+$/.test(raw)) {
    if (Number(raw) <= 10) return Number(raw);
    problems.push(`TRUST_PROXY="${raw}" must be a number of proxy hops from 1 to 10`);
    return false;
  }
  if (/^(true|yes|on)$/i.test(raw)) {
    problems.push(
      `TRUST_PROXY="${raw}" would trust every X-Forwarded-For entry, which clients can forge: give the number of proxies in front of the app (e.g. 1) or their addresses (e.g. 127.0.0.1,10.0.0.0/8)`,
    );
    return false;
  }
  const entries = raw.split(",").map((e) => e.trim());
  const bad = entries.filter((e) => !PROXY_NAMES.has(e.toLowerCase()) && !isAddressOrRange(e));
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY="${raw}": ${bad.map((b) => `"${b}"`).join(", ")} is not an IP address, a CIDR range or loopback/linklocal/uniquelocal`,
    );
    return false;
  }
  return entries.map((e) => (PROXY_NAMES.has(e.toLowerCase()) ? e.toLowerCase() : e));
}

/**
 * Fastify's `trustProxy` for a TRUST_PROXY value. A hop count becomes a function trusting the first `hops`
 * addresses (the socket's peer and the entries the proxies appended), because Fastify itself reads a bare number
 * as "trust nothing" (it cannot check that the peer really is a proxy; see docs/configuration.md "Behind a reverse
 * proxy").
 */
export function trustProxyOption(
  trust: Config["trustProxy"],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== "number") return trust;
  return (_address, hop) => hop < trust;
}

function isAddressOrRange(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * A display name for a From header (RFC 5322): as it is when it is all atoms and spaces, else quoted with its quotes
 * and backslashes escaped, so a village called "Upper Piddle, Dorset" stays one sender rather than two addresses.
 */
function displayName(name: string): string {
  // eslint-disable-next-line no-control-regex -- line breaks and control characters never reach a header.
  const clean = name.replace(/[\u0000-\u001f\u007f]+/g, " ");
  return /[()<>[\]:;@\\,."]/.test(clean) ? `"${clean.replace(/["\\]/g, "\\$&")}"` : clean;
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

/** The address of this site's tile proxy (src/maps), which the maps load while MAP_TILE_PROXY is on. */
export const PROXIED_TILE_URL = "/tiles/{z}/{x}/{y}.png";

/**
 * The origin the browser loads tiles from when it is not this site (the proxy off), allowed in the
 * Content-Security-Policy img-src; null while the proxy is on: the browser then asks nobody else.
 */
export function tileOrigin(config: Config): string | null {
  if (config.map.proxy) return null;
  const u = new URL(config.map.upstreamUrl.replace(/\{[a-z]\}/g, "a"));
  return `${u.protocol}//${u.host.replace(/^a\./, "*.")}`;
}
