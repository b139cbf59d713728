import { LRUCache } from "lru-cache";

/** A serialised answer, ready to send again. */
export interface CachedAnswer {
  payload: Buffer | string;
  contentType: string;
  /** A strong entity tag from the bytes, so every process gives the same answer the same tag. */
  etag: string;
  /** When it was built (the app's clock, ms): a default window ("the last 90 days") slides with time. */
  builtAt: number;
}

export interface AnswerCacheOptions {
  /** Bytes of answers kept at most (0: keep nothing). */
  maxBytes: number;
  /** How long an answer is served before it is built again even though no data changed, ms. */
  freshMs: number;
}

/** Answers larger than this are not kept (a page of 1,000 requests is ~550 KB of JSON, ~800 KB of XML). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Serialised answers of one process, valid for one public read version only. A process keeps what it built and
 * serves it again while the version it reads from the database at each request is unchanged; a change committed
 * by any process (a new report, a status change, a moderation decision, a category edit, plain SQL) moves the
 * version, and every process drops its answers at its next request. Bounded in bytes (least recently used go
 * first), so varied queries cannot grow it; an answer is also rebuilt after `freshMs`, because an answer without
 * dates covers the last 90 days counted from now.
 *
 * Correctness across concurrent requests: the version is read before the data, so an answer is never older than
 * the version it is kept under; an answer built under a version that has since moved on is not kept.
 */
export class AnswerCache {
  private version = -1;
  private readonly answers: LRUCache<string, CachedAnswer> | null;

  constructor(private readonly options: AnswerCacheOptions) {
    this.answers =
      options.maxBytes > 0
        ? new LRUCache<string, CachedAnswer>({
            maxSize: options.maxBytes,
            maxEntrySize: Math.min(MAX_ANSWER_BYTES, options.maxBytes),
            // The key counts too: a search may list up to 100 service codes.
            sizeCalculation: (a, key) =>
              (typeof a.payload === "string" ? a.payload.length * 3 : a.payload.length) + key.length * 2 + 200,
          })
        : null;
  }

  /** The kept answer for `key`, if it was built under `version` and is still fresh at `now`. */
  get(key: string, version: number, now: number): CachedAnswer | undefined {
    if (!this.answers) return undefined;
    this.moveTo(version);
    if (version !== this.version) return undefined;
    const found = this.answers.get(key);
    if (!found) return undefined;
    if (now - found.builtAt >= this.options.freshMs || now < found.builtAt) {
      this.answers.delete(key);
      return undefined;
    }
    return found;
  }

  /** Keeps an answer built from data read after `version` was read. */
  set(key: string, version: number, answer: CachedAnswer): void {
    if (!this.answers) return;
    this.moveTo(version);
    if (version === this.version) this.answers.set(key, answer);
  }

  /** Whether answers are kept at all (OPEN311_CACHE_MB is not 0). */
  get enabled(): boolean {
    return this.answers !== null;
  }

  /** How many answers are kept (for tests and the benchmark). */
  get size(): number {
    return this.answers?.size ?? 0;
  }

  private moveTo(version: number): void {
    if (version > this.version) {
      this.answers?.clear();
      this.version = version;
    }
  }
}
