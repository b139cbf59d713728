import { createHash } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Civic } from "../core/context.js";
import { AppError } from "../core/http/errors.js";
import type { WindowLimit } from "../core/limits/fixed-window.js";
import { mediaStorage, type Storage } from "../core/media/storage.js";

/** A kept tile is fetched again after a week (the OpenStreetMap tile usage policy asks for at least 7 days). */
export const TILE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** The most an upstream answer may hold; a larger one is refused (a tile is some kilobytes). */
export const TILE_MAX_BYTES = 1024 * 1024;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);

export interface Tile {
  data: Buffer;
  contentType: string;
  /** SHA-256 of the bytes, hex: the stored copy's name and the answer's entity tag. */
  hash: string;
  fetchedAt: number;
  /** An old copy served because the upstream could not give a new one: asked for again soon. */
  stale: boolean;
}

const storageKey = (hash: string) => `tiles/${hash}.png`;

/** The User-Agent the OpenStreetMap tile usage policy asks for: the application, its site and how to reach us. */
export function tileUserAgent(baseUrl: string, contactEmail: string): string {
  const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, "?");
  return `community-civic-platform/1.0 (map tile proxy; +${ascii(new URL(baseUrl).origin)}; ${ascii(contactEmail)})`;
}

/**
 * The map tiles of the village, fetched from MAP_TILE_URL and kept in the media store (so every instance sharing it
 * serves the same copy) with the time they were fetched in `map_tiles`. A kept tile is served for a week, then
 * fetched again; while the upstream fails, the old copy is served. Fetches are capped per minute for all instances
 * together (the database-backed limiter), and a tile asked for again while it is being fetched waits for that fetch.
 */
export class TileProxy {
  private readonly storage: Storage;
  private readonly inFlight = new Map<string, Promise<Tile>>();
  private readonly limit: WindowLimit;
  private readonly userAgent: string;

  constructor(
    private readonly civic: Civic,
    private readonly log: FastifyBaseLogger,
  ) {
    this.storage = mediaStorage(civic.config);
    this.limit = { name: "map-tile-fetches", max: civic.config.map.fetchesPerMinute, windowMs: 60_000 };
    this.userAgent = tileUserAgent(civic.config.baseUrl, civic.config.village.contactEmail);
  }

  private get db() {
    return this.civic.database.db;
  }

  /** The tile z/x/y (already checked to be one the village's maps use). */
  async tile(z: number, x: number, y: number): Promise<Tile> {
    const kept = await this.kept(z, x, y);
    if (kept && !kept.stale) return kept;
    const key = `${z}/${x}/${y}`;
    let fetching = this.inFlight.get(key);
    if (!fetching) {
      fetching = this.refresh(z, x, y, kept).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, fetching);
    }
    return fetching;
  }

  /** The kept copy, marked stale once it is older than a week; null when there is none (or its bytes are gone). */
  private async kept(z: number, x: number, y: number): Promise<Tile | null> {
    const row = await this.db
      .selectFrom("map_tiles")
      .select(["hash", "content_type", "fetched_at"])
      .where("z", "=", z)
      .where("x", "=", x)
      .where("y", "=", y)
      .executeTakeFirst();
    if (!row) return null;
    // A media store that cannot be read (an object store out of reach) is like one without the tile.
    const data = await this.storage.get(storageKey(row.hash)).catch((error: unknown) => {
      this.log.warn({ err: error }, "map tiles: a kept tile could not be read");
      return null;
    });
    if (!data) return null;
    const fetchedAt = Number(row.fetched_at);
    return {
      data,
      contentType: row.content_type,
      hash: row.hash,
      fetchedAt,
      stale: this.civic.now().getTime() - fetchedAt >= TILE_MAX_AGE_MS,
    };
  }

  private async refresh(z: number, x: number, y: number, old: Tile | null): Promise<Tile> {
    const allowed = await this.civic.limits.hit(this.limit, "upstream");
    if (!allowed.allowed) {
      if (old) return old;
      throw rateLimitedUpstream(allowed.retryAfterSeconds);
    }
    let fetched: { data: Buffer; contentType: string };
    try {
      fetched = await fetchTile(this.upstreamUrl(z, x, y), this.userAgent, this.civic.config.map.fetchTimeoutMs);
    } catch (error) {
      if (old) return old;
      throw error;
    }
    const hash = createHash("sha256").update(fetched.data).digest("hex");
    const fetchedAt = this.civic.now().getTime();
    const row = { hash, content_type: fetched.contentType, bytes: fetched.data.length, fetched_at: fetchedAt };
    try {
      await this.storage.put(storageKey(hash), fetched.data);
      await this.db
        .insertInto("map_tiles")
        .values({ z, x, y, ...row })
        .onConflict((oc) => oc.columns(["z", "x", "y"]).doUpdateSet(row))
        .execute();
      if (old && old.hash !== hash) await this.forget(old.hash);
    } catch (error) {
      // Served all the same; fetched again next time.
      this.log.warn({ err: error }, "map tiles: a fetched tile could not be kept");
    }
    return { data: fetched.data, contentType: fetched.contentType, hash, fetchedAt, stale: false };
  }

  /** Removes stored bytes no tile names any more (many tiles of fields or water share one picture). */
  private async forget(hash: string): Promise<void> {
    const used = await this.db.selectFrom("map_tiles").select("z").where("hash", "=", hash).limit(1).executeTakeFirst();
    if (!used) await this.storage.delete(storageKey(hash));
  }

  private upstreamUrl(z: number, x: number, y: number): string {
    return this.civic.config.map.upstreamUrl
      .replace("{z}", String(z))
      .replace("{x}", String(x))
      .replace("{y}", String(y))
      .replace("{s}", "abc"[(x + y) % 3] ?? "a");
  }
}

function rateLimitedUpstream(retryAfterSeconds: number): AppError {
  return new AppError(
    "service_unavailable",
    "This part of the map is not available yet: we fetch only so many map pictures a minute. Please try again soon.",
    { headers: { "retry-after": String(retryAfterSeconds) } },
  );
}

const badGateway = (why: string, cause?: unknown) =>
  new AppError("bad_gateway", `The map tile server ${why}, so this part of the map cannot be shown.`, { cause });

/**
 * One tile from the upstream: an image of at most TILE_MAX_BYTES, answer and body within `timeoutMs`; anything else
 * is a 502 (an error, not an image, too large, unreachable) or a 504 (too slow).
 */
export async function fetchTile(
  url: string,
  userAgent: string,
  timeoutMs: number,
): Promise<{ data: Buffer; contentType: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const failed = (error: unknown) =>
    signal.aborted
      ? new AppError(
          "gateway_timeout",
          "The map tile server did not answer in time, so this part of the map cannot be shown.",
        )
      : badGateway("could not be reached", error);
  let response: Response;
  try {
    response = await fetch(url, { headers: { "user-agent": userAgent, accept: "image/png,image/*" }, signal });
  } catch (error) {
    throw failed(error);
  }
  try {
    if (!response.ok) throw badGateway(`answered ${response.status}`);
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!IMAGE_TYPES.has(contentType)) throw badGateway("did not send an image");
    if (Number(response.headers.get("content-length") ?? 0) > TILE_MAX_BYTES) throw badGateway("sent too much");
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    for (let part = await reader?.read(); part && !part.done; part = await reader?.read()) {
      size += part.value.byteLength;
      if (size > TILE_MAX_BYTES) throw badGateway("sent too much");
      chunks.push(Buffer.from(part.value));
    }
    if (size === 0) throw badGateway("sent an empty answer");
    return { data: Buffer.concat(chunks), contentType };
  } catch (error) {
    // Whatever is left of the body is not read.
    await response.body?.cancel().catch(() => undefined);
    if (error instanceof AppError) throw error;
    throw failed(error);
  }
}
