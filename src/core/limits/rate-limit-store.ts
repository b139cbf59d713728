import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { FixedWindowLimiter } from "./fixed-window.js";

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A store for @fastify/rate-limit whose counters are the database's fixed-window counters (fixed-window.ts), so
 * every instance sharing the database counts the same hits: two instances do not give a client twice the allowance.
 * Each route with its own limit gets its own counter family (named after the route); limiters made with
 * `createRateLimit` share one family, so their key generators keep them apart. Used on PostgreSQL (app.ts).
 */
export function databaseRateLimitStore(limiter: () => FixedWindowLimiter): FastifyRateLimitStoreCtor {
  class DatabaseStore implements FastifyRateLimitStore {
    /** The plugin constructs the store with its options (unused here); children name their family. */
    constructor(
      _options?: unknown,
      private readonly family = "http",
    ) {}

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      limiter()
        .hit({ name: this.family, max, windowMs: timeWindow }, key)
        .then(
          (result) => callback(null, { current: result.hits, ttl: result.retryAfterSeconds * 1000 }),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
    }

    /** Called with the merged limit options, whose `routeInfo` is the route (empty for `createRateLimit`). */
    child(options: object): FastifyRateLimitStore {
      const route = (options as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo ?? {};
      const method = typeof route.method === "string" ? route.method : "";
      const url = typeof route.url === "string" ? route.url : "";
      return new DatabaseStore(undefined, method || url ? `http:${method} ${url}` : this.family);
    }
  }
  return DatabaseStore as unknown as FastifyRateLimitStoreCtor;
}
