import type { Kysely } from "kysely";
import type { Worker } from "../core/context.js";
import type { AnalyticsKind, DB } from "../core/db/schema.js";
import { type VisitorTraits, visitorHash } from "./visitors.js";

/** How long increments wait in memory before they are written. */
export const FLUSH_MS = 5_000;
/** Hard caps on what waits in memory; past them a flush starts at once, and while it runs new increments are dropped. */
const MAX_COUNT_KEYS = 20_000;
const MAX_VISITORS = 100_000;
/** Rows per INSERT statement. */
const CHUNK = 500;
/** Visitor hashes computed in one go before the flush lets other work run (a hash costs a few microseconds). */
const HASHES_PER_TURN = 1_000;

export type CountKind = Exclude<AnalyticsKind, "visitors">;
const COUNT_KINDS: readonly CountKind[] = ["device", "endpoint", "page", "referrer"];

export interface CounterLog {
  warn(obj: object, msg: string): void;
}

/** The salt of a day, loaded from the database (shared by every process). */
export type SaltSource = (day: string) => Promise<Buffer>;

/**
 * What waits in memory for one day. Visitors are kept as their hash inputs, nested by user agent, host and address
 * so that noting a visit joins no strings and allocates nothing for a visitor already seen; they are hashed at the
 * flush (one HMAC per visitor and window instead of one per page view) and then dropped with the window.
 */
interface DayWindow {
  counts: Record<CountKind, Map<string, number>>;
  visitors: Map<string, Map<string, Set<string>>>;
}

interface CountRow {
  day: string;
  kind: AnalyticsKind;
  key: string;
  count: number;
}

const compareRows = (a: CountRow, b: CountRow) =>
  a.day !== b.day
    ? a.day < b.day
      ? -1
      : 1
    : a.kind !== b.kind
      ? a.kind < b.kind
        ? -1
        : 1
      : a.key < b.key
        ? -1
        : a.key > b.key
          ? 1
          : 0;

/**
 * Increments of the daily counts and the day's visitors, held in memory for at most FLUSH_MS and written in one
 * transaction of upserts. Several processes add to the same rows; rows are written in key order, so two processes
 * flushing at once never deadlock on PostgreSQL. Nothing here ever fails a request: a failed write is logged
 * (without any value) and retried with the next flush while the caps allow. Addresses and user agents never leave
 * the window they were noted in: a failed write keeps only the visitor hashes for the retry.
 */
export class CountBuffer implements Worker {
  readonly name = "analytics";
  private days = new Map<string, DayWindow>();
  private lastDay = "";
  private lastWindow: DayWindow | null = null;
  private countKeys = 0;
  private visitorKeys = 0;
  /** Visitor rows (`day\thash`) whose write failed, for the next flush. */
  private hashed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private dropped = 0;
  private stopped = false;
  /** Called whenever a window is handed to a flush (the plugin forgets its per-window memos). */
  onWindowEnd: () => void = () => {};

  constructor(
    private readonly db: () => Kysely<DB>,
    private readonly salt: SaltSource,
    private readonly log?: CounterLog,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Adds `n` (default one) to the count of (day, kind, key). */
  increment(day: string, kind: CountKind, key: string, n = 1): void {
    const counts = this.window(day).counts[kind];
    const had = counts.get(key);
    if (had !== undefined) counts.set(key, had + n);
    else if (this.countKeys < MAX_COUNT_KEYS) {
      counts.set(key, n);
      this.countKeys++;
    } else this.overflow();
  }

  /** Notes a visitor of a day (a set: the database keeps one row per visitor hash and day). */
  visit(day: string, traits: VisitorTraits): void {
    const byAgent = this.window(day).visitors;
    let byHost = byAgent.get(traits.userAgent);
    if (byHost === undefined) byAgent.set(traits.userAgent, (byHost = new Map()));
    let addresses = byHost.get(traits.host);
    if (addresses === undefined) byHost.set(traits.host, (addresses = new Set()));
    if (addresses.has(traits.clientAddress)) return;
    if (this.visitorKeys < MAX_VISITORS) {
      addresses.add(traits.clientAddress);
      this.visitorKeys++;
    } else this.overflow();
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
    if (this.flushing) await this.flushing;
    if (this.days.size === 0 && this.hashed.size === 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const days = this.days;
    const hashed = this.hashed;
    this.days = new Map();
    this.hashed = new Set();
    this.lastDay = "";
    this.lastWindow = null;
    this.countKeys = 0;
    this.visitorKeys = 0;
    this.onWindowEnd();
    this.flushing = this.hashAndWrite(days, hashed).finally(() => {
      this.flushing = null;
      if (this.dropped > 0) {
        this.log?.warn({ dropped: this.dropped }, "analytics: increments dropped while the buffer was full");
        this.dropped = 0;
      }
    });
    await this.flushing;
  }

  private window(day: string): DayWindow {
    if (day === this.lastDay && this.lastWindow) return this.lastWindow;
    let w = this.days.get(day);
    if (w === undefined) {
      w = {
        counts: { device: new Map(), endpoint: new Map(), page: new Map(), referrer: new Map() },
        visitors: new Map(),
      };
      this.days.set(day, w);
      this.schedule();
    }
    this.lastDay = day;
    this.lastWindow = w;
    return w;
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

  /** Hashes the windows' visitors with their day's salt, then writes counts and hashes in one transaction. */
  private async hashAndWrite(days: Map<string, DayWindow>, hashed: Set<string>): Promise<void> {
    const countRows: CountRow[] = [];
    for (const [day, w] of days) {
      for (const kind of COUNT_KINDS)
        for (const [key, count] of w.counts[kind]) countRows.push({ day, kind, key, count });
      if (w.visitors.size === 0) continue;
      let salt: Buffer;
      try {
        salt = await this.salt(day);
      } catch (error) {
        this.log?.warn({ code: (error as { code?: unknown }).code ?? null }, "analytics: could not load the salt");
        w.visitors.clear();
        continue;
      }
      let n = 0;
      for (const [userAgent, byHost] of w.visitors) {
        for (const [host, addresses] of byHost) {
          for (const clientAddress of addresses) {
            hashed.add(`${day}\t${visitorHash(salt, { clientAddress, userAgent, host })}`);
            if (++n % HASHES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
          }
        }
      }
      w.visitors.clear();
    }
    countRows.sort(compareRows);
    try {
      await this.write(countRows, hashed);
    } catch (error) {
      this.log?.warn(
        { code: (error as { code?: unknown }).code ?? null, keys: countRows.length, visitors: hashed.size },
        "analytics: could not write counts; keeping them for the next flush",
      );
      this.restore(countRows, hashed);
    }
  }

  /** Puts back increments whose write failed, as far as the caps allow. */
  private restore(countRows: CountRow[], hashed: Set<string>): void {
    for (const r of countRows) this.increment(r.day, r.kind as CountKind, r.key, r.count);
    for (const v of hashed) if (this.hashed.size < MAX_VISITORS) this.hashed.add(v);
    this.schedule();
  }

  private async write(countRows: CountRow[], hashed: Set<string>): Promise<void> {
    const visitorRows = [...hashed].sort().map((v) => {
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
