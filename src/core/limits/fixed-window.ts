import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import { firstPrepared } from "../db/prepared.js";
import type { DB } from "../db/schema.js";
import { AppError } from "../http/errors.js";

/** A limit: at most `max` hits per `windowMs` for one subject. */
export interface WindowLimit {
  /** Names the counter family, e.g. "sign-in-email". */
  name: string;
  max: number;
  windowMs: number;
}

export interface LimitResult {
  allowed: boolean;
  hits: number;
  /** Seconds until the window ends (for Retry-After). */
  retryAfterSeconds: number;
}

/**
 * A fixed-window rate limiter whose counters live in the database, so several processes sharing one PostgreSQL (or
 * one SQLite file) count together. Subjects (email addresses, client addresses) are stored only as keyed hashes, so
 * the counter table never holds personal data in the clear.
 */
export class FixedWindowLimiter {
  private hitsSincePurge = 0;

  constructor(
    private readonly db: () => Kysely<DB>,
    private readonly secret: string,
    private readonly now: () => Date,
  ) {}

  private key(limit: WindowLimit, subject: string): string {
    const digest = createHmac("sha256", this.secret).update(`limit:${limit.name}:${subject}`).digest("base64url");
    return `${limit.name}:${digest}`;
  }

  /** Counts one hit against `subject` and says whether it is within the limit. */
  async hit(limit: WindowLimit, subject: string): Promise<LimitResult> {
    const nowMs = this.now().getTime();
    const windowStart = Math.floor(nowMs / limit.windowMs) * limit.windowMs;
    const expiresAt = windowStart + limit.windowMs;
    const db = this.db();
    const counted = db
      .insertInto("rate_limit_counters")
      .values({ key: this.key(limit, subject), window_start: windowStart, hits: 1, expires_at: expiresAt })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet((eb) => ({
          hits: eb
            .case()
            .when("rate_limit_counters.window_start", "=", windowStart)
            .then(eb("rate_limit_counters.hits", "+", 1))
            .else(1)
            .end(),
          window_start: windowStart,
          expires_at: expiresAt,
        })),
      )
      .returning("hits");
    // Every request counts a hit: parsed and planned once per connection on PostgreSQL.
    const row = await firstPrepared(db, counted);
    if (!row) throw new Error("rate limit: the counter returned no row");
    if (++this.hitsSincePurge >= 500) {
      this.hitsSincePurge = 0;
      await this.purge();
    }
    const hits = Number(row.hits);
    return { allowed: hits <= limit.max, hits, retryAfterSeconds: Math.max(1, Math.ceil((expiresAt - nowMs) / 1000)) };
  }

  /** Forgets the counter of `subject` (e.g. after a successful sign-in). */
  async reset(limit: WindowLimit, subject: string): Promise<void> {
    await this.db().deleteFrom("rate_limit_counters").where("key", "=", this.key(limit, subject)).execute();
  }

  /** Removes counters whose window has ended. */
  async purge(): Promise<void> {
    await this.db().deleteFrom("rate_limit_counters").where("expires_at", "<", this.now().getTime()).execute();
  }

  /** Counts a hit for every (limit, subject) pair; throws a 429 AppError with Retry-After when any is exceeded. */
  async enforce(
    checks: [WindowLimit, string][],
    message = "Too many attempts. Please wait and try again.",
  ): Promise<void> {
    let retry = 0;
    for (const [limit, subject] of checks) {
      const result = await this.hit(limit, subject);
      if (!result.allowed) retry = Math.max(retry, result.retryAfterSeconds);
    }
    if (retry > 0) throw rateLimited(message, retry);
  }
}

export function rateLimited(message: string, retryAfterSeconds: number): AppError {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new AppError("rate_limited", `${message} Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
    headers: { "retry-after": String(retryAfterSeconds) },
  });
}
