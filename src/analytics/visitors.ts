import { createHmac, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The statistics day of an instant: its UTC calendar date, `YYYY-MM-DD`. */
export function statsDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Today's statistics day by a clock, for every request: `statsDay` runs only when the clock has left the UTC day it
 * last gave (a comparison instead of a date string per request).
 */
export class DayClock {
  private day = "";
  private start = 0;
  private end = 0;

  constructor(private readonly now: () => Date) {}

  today(): string {
    const t = this.now().getTime();
    if (t < this.start || t >= this.end || this.day === "") {
      this.start = Math.floor(t / DAY_MS) * DAY_MS;
      this.end = this.start + DAY_MS;
      this.day = statsDay(new Date(this.start));
    }
    return this.day;
  }
}

/** The day `days` before (negative: after) the given one. */
export function addDays(day: string, days: number): string {
  return statsDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS));
}

/**
 * The salt of a day: created by whichever process needs it first (an insert that does nothing when another process
 * won), then read back, so every process sharing the database hashes with the same salt.
 */
export async function loadSalt(db: Kysely<DB>, day: string, now: Date): Promise<Buffer> {
  await db
    .insertInto("analytics_salts")
    .values({ day, salt: randomBytes(32).toString("base64url"), created_at: now.toISOString() })
    .onConflict((oc) => oc.column("day").doNothing())
    .execute();
  const row = await db.selectFrom("analytics_salts").select("salt").where("day", "=", day).executeTakeFirstOrThrow();
  return Buffer.from(row.salt, "base64url");
}

/**
 * Deletes the salts of days before yesterday, so a salt lives at most 48 hours: after that nobody (not even with a
 * copy of the database) can tell whose visit a hash was.
 */
export async function deleteOldSalts(db: Kysely<DB>, today: string): Promise<number> {
  const result = await db.deleteFrom("analytics_salts").where("day", "<", addDays(today, -1)).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What identifies a visitor for one day; none of it is stored. */
export interface VisitorTraits {
  clientAddress: string;
  userAgent: string;
  host: string;
}

/** The visitor's hash for the day of `salt`: an HMAC, so without the salt it says nothing about the traits. */
export function visitorHash(salt: Buffer, traits: VisitorTraits): string {
  return createHmac("sha256", salt)
    .update(`${traits.clientAddress}\n${traits.userAgent}\n${traits.host}`)
    .digest("base64url")
    .slice(0, 22);
}

/**
 * This process's copy of today's salt. `current(day)` answers synchronously once the salt is loaded (the common
 * case); `load(day)` fetches it (one query per process per day); `get(day)` does whichever is needed.
 */
export class SaltCache {
  private day: string | null = null;
  private salt: Buffer | null = null;
  private pending: Promise<Buffer> | null = null;
  private pendingDay: string | null = null;

  constructor(
    private readonly db: () => Kysely<DB>,
    private readonly now: () => Date,
  ) {}

  current(day: string): Buffer | null {
    return this.day === day ? this.salt : null;
  }

  /** The salt of a day: the one held, or loaded. */
  get(day: string): Promise<Buffer> {
    const salt = this.current(day);
    return salt ? Promise.resolve(salt) : this.load(day);
  }

  load(day: string): Promise<Buffer> {
    if (this.pending && this.pendingDay === day) return this.pending;
    this.pendingDay = day;
    this.pending = loadSalt(this.db(), day, this.now()).then(
      (salt) => {
        this.day = day;
        this.salt = salt;
        this.pending = null;
        return salt;
      },
      (error: unknown) => {
        this.pending = null;
        throw error;
      },
    );
    return this.pending;
  }

  /** Forgets the salt held in memory (when the process stops). */
  clear(): void {
    this.day = null;
    this.salt = null;
  }
}
