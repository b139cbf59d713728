import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { firstPrepared } from "../core/db/prepared.js";
import type { DB } from "../core/db/schema.js";

/** Every key starts with this, so a leaked key is recognisable (e.g. by secret scanners). */
const KEY_PREFIX = "civic_";
const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 6;

/**
 * The request header that carries a key: preferred over the standard's `api_key` parameter (which still works),
 * because a header stays out of URLs, and so out of access logs, proxy logs, browser history and cache keys.
 * `X-Api-Key` rather than `Authorization: Bearer`, so a reverse proxy's own HTTP authentication (e.g. a staging
 * site behind Basic auth) never collides with it.
 */
export const API_KEY_HEADER = "x-api-key";

/** The key a request carries in the X-Api-Key header or the `api_key` query parameter (the header wins). */
export function requestApiKey(request: { headers: Record<string, unknown>; query: unknown }): string | undefined {
  const header = request.headers[API_KEY_HEADER];
  if (typeof header === "string" && header.trim() !== "") return header.trim();
  const { query } = request;
  const inQuery = typeof query === "object" && query !== null && "api_key" in query ? query.api_key : undefined;
  return typeof inQuery === "string" && inQuery !== "" ? inQuery : undefined;
}

/** sha256 of a key, hex: the only form a key is stored in. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new random key: 192 bits, URL-safe. */
export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(24).toString("base64url")}`;
}

export interface CreatedApiKey {
  id: number;
  name: string;
  /** The key itself: shown once, never stored. */
  key: string;
  prefix: string;
}

/** Creates a key for an Open311 client. Only its hash and its first characters are stored. */
export async function createApiKey(db: Kysely<DB>, name: string, now: Date): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const prefix = key.slice(0, SHOWN_PREFIX_LENGTH);
  const row = await db
    .insertInto("api_keys")
    .values({ name, key_hash: hashApiKey(key), prefix, created_at: now.toISOString() })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, name, key, prefix };
}

export interface ApiKeyListing {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** All keys, oldest first, without their hashes. */
export async function listApiKeys(db: Kysely<DB>): Promise<ApiKeyListing[]> {
  return db
    .selectFrom("api_keys")
    .select(["id", "name", "prefix", "created_at", "revoked_at", "last_used_at"])
    .orderBy("id")
    .execute();
}

/** Revokes a key. Returns false when there is no such key or it was already revoked. */
export async function revokeApiKey(db: Kysely<DB>, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ revoked_at: now.toISOString() })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The client a valid key belongs to. */
export interface ApiClient {
  id: number;
  name: string;
}

/** Finds the active (not revoked) key with this value; null for an unknown or revoked key. */
export async function findActiveApiKey(db: Kysely<DB>, key: string): Promise<ApiClient | null> {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const row = await firstPrepared(
    db,
    db
      .selectFrom("api_keys")
      .select(["id", "name"])
      .where("key_hash", "=", hashApiKey(key))
      .where("revoked_at", "is", null),
  );
  return row ?? null;
}

/** How stale `last_used_at` may be: a key posting many reports a second writes it once a minute, not every time. */
export const TOUCH_EVERY_MS = 60_000;

/**
 * Records that a key was used (for `api-keys list`), to the minute: the update matches nothing while the stored time
 * is less than TOUCH_EVERY_MS old, so it costs no write (and no synced commit) on busy keys. True when it wrote.
 */
export async function touchApiKey(db: Kysely<DB>, id: number, now: Date): Promise<boolean> {
  const stale = new Date(now.getTime() - TOUCH_EVERY_MS).toISOString();
  const result = await db
    .updateTable("api_keys")
    .set({ last_used_at: now.toISOString() })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", stale)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Keys whose last write a process remembers, at most (there are a handful of keys; this only bounds memory). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * touchApiKey without its statement while it could not write anyway: a process remembers when it last wrote a key's
 * time itself, and the stored time is never older than that (only newer, when another process wrote), so within
 * TOUCH_EVERY_MS of its own write the update would match nothing and is skipped. Each process still writes at most
 * once a minute, and `last_used_at` is never more than a minute behind a key's last use, as with touchApiKey alone.
 */
export class ApiKeyTouches {
  private readonly written = new Map<number, number>();

  async touch(db: Kysely<DB>, id: number, now: Date): Promise<void> {
    const at = now.getTime();
    const last = this.written.get(id);
    if (last !== undefined && at >= last && at - last < TOUCH_EVERY_MS) return;
    if (await touchApiKey(db, id, now)) {
      if (this.written.size >= MAX_REMEMBERED_KEYS) this.written.clear();
      this.written.set(id, at);
    }
  }
}
