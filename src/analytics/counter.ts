import type { Kysely } from "kysely";
import type { Worker } from "../core/context.js";
import type { AnalyticsKind, DB } from "../core/db/schema.js";

/** How long increments wait in memory before they are written. */
export const FLUSH_MS = 5_000;
/** Hard caps on what waits in memory; past them a flush starts at once, and while it runs new increments are dropped. */
const MAX_COUNT_KEYS = 20_000;
const MAX_VISITORS = 100_000;
/** Rows per INSERT statement. */
const CHUNK = 500;

export interface CounterLog {
  warn(obj: object, msg: string): void;
}

/**
 * Increments of the daily counts and the day's visitor hashes, held in memory for at most FLUSH_MS and written in
 * one transaction of upserts. Several processes add to the same rows; rows are written in key order, so two
 * processes flushing at once never deadlock on PostgreSQL. Nothing here ever fails a request: a failed write is
 * logged (without any value) and retried with the next flush while the caps allow.
 */
export class CountBuffer implements Worker {
  readonly name = "analytics";
  private counts = new Map<string, number>();
  private visitors = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly pending = new Set<Promise<unknown>>();
  private dropped = 0;
  private stopped = false;

  constructor(
    private readonly db: () => Kysely<DB>,
    private readonly log?: CounterLog,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Adds one to the count of (day, kind, key). */
  increment(day: string, kind: AnalyticsKind, key: string): void {
    const k = `${day}\t${kind}\t${key}`;
    const n = this.counts.get(k);
    if (n !== undefined) this.counts.set(k, n + 1);
    else if (this.counts.size < MAX_COUNT_KEYS) this.counts.set(k, 1);
    else this.overflow();
    this.schedule();
  }

  /** Notes a visitor hash of a day (a set: the database keeps one row per visitor and day). */
  visit(day: string, visitor: string): void {
    if (this.visitors.size < MAX_VISITORS) this.visitors.add(`${day}\t${visitor}`);
    else this.overflow();
    this.schedule();
  }

  /** Counts something once `work` has settled (e.g. a visit waiting for the day's salt); flush waits for it. */
  after(work: Promise<unknown>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  start(): void {}

  /** Writes what is waiting; the process is stopping. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Writes everything waiting now (tests call this instead of waiting FLUSH_MS). */
  async flush(): Promise<void> {
    if (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    if (this.flushing) await this.flushing;
    if (this.counts.size === 0 && this.visitors.size === 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const counts = this.counts;
    const visitors = this.visitors;
    this.counts = new Map();
    this.visitors = new Set();
    this.flushing = this.write(counts, visitors)
      .catch((error: unknown) => {
        this.log?.warn(
          { code: (error as { code?: unknown }).code ?? null, keys: counts.size, visitors: visitors.size },
          "analytics: could not write counts; keeping them for the next flush",
        );
        this.restore(counts, visitors);
      })
      .finally(() => {
        this.flushing = null;
        if (this.dropped > 0) {
          this.log?.warn({ dropped: this.dropped }, "analytics: increments dropped while the buffer was full");
          this.dropped = 0;
        }
      });
    await this.flushing;
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private overflow(): void {
    this.dropped++;
    if (!this.flushing) void this.flush();
  }

  /** Puts back increments whose write failed, as far as the caps allow. */
  private restore(counts: Map<string, number>, visitors: Set<string>): void {
    for (const [k, n] of counts) {
      const mine = this.counts.get(k);
      if (mine !== undefined) this.counts.set(k, mine + n);
      else if (this.counts.size < MAX_COUNT_KEYS) this.counts.set(k, n);
    }
    for (const v of visitors) if (this.visitors.size < MAX_VISITORS) this.visitors.add(v);
    this.schedule();
  }

  private async write(counts: Map<string, number>, visitors: Set<string>): Promise<void> {
    const countRows = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, count]) => {
        const [day, kind, key] = k.split("\t") as [string, AnalyticsKind, string];
        return { day, kind, key, count };
      });
    const visitorRows = [...visitors].sort().map((v) => {
      const [day, visitor] = v.split("\t") as [string, string];
      return { day, visitor };
    });
    await this.db()
      .transaction()
      .execute(async (trx) => {
        for (let i = 0; i < countRows.length; i += CHUNK) {
          await trx
            .insertInto("analytics_counts")
            .values(countRows.slice(i, i + CHUNK))
            .onConflict((oc) =>
              oc
                .columns(["day", "kind", "key"])
                .doUpdateSet((eb) => ({ count: eb("analytics_counts.count", "+", eb.ref("excluded.count")) })),
            )
            .execute();
        }
        for (let i = 0; i < visitorRows.length; i += CHUNK) {
          await trx
            .insertInto("analytics_visitors")
            .values(visitorRows.slice(i, i + CHUNK))
            .onConflict((oc) => oc.columns(["day", "visitor"]).doNothing())
            .execute();
        }
      });
  }
}
