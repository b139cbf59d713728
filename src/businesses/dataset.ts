import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { businessIri, businessJsonLd, SCHEMA_ORG_CONTEXT, trimSlash } from "./jsonld.js";
import { type BusinessRecord, DATASET_SCHEMA_VERSION, fromRow } from "./model.js";
import { allBusinessRows, type ChangeEntry, type ChangeLogMark, changeLogMark, changesSince } from "./repository.js";
import { Prepared } from "./representation.js";
import { schemaClass, selfAndAncestors } from "./vocabulary.js";

/** Where the canonical export is served. */
export const CANONICAL_PATH = "/data/businesses-canonical.json";
export const LIST_PATH = "/api/v1/businesses";

/**
 * Folds text for matching: Unicode compatibility decomposition, accents removed, a few letters that do not
 * decompose spelled out, lower case, runs of white space collapsed. "Pâtisserie NOËLLE" → "patisserie noelle".
 */
export function foldText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[œŒ]/g, "oe")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .replace(/[đĐ]/g, "d")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** One live business with everything a request needs prepared. */
export interface Entry {
  record: BusinessRecord;
  /** The business's JSON-LD, serialised once. */
  json: Buffer;
  categoryKey: string;
  /** Index in the snapshot's entries. */
  position: number;
  /** The business's type and all its supertypes. */
  types: ReadonlySet<string>;
  /** The single-business response, made on first request. */
  single?: Prepared;
}

export interface ListFilters {
  category?: string | undefined;
  schemaType?: string | undefined;
  q?: string | undefined;
}

export interface Tombstone {
  "@id": string;
  identifier: string;
  dateDeleted: string;
}

const MAX_CACHED_QUERIES = 256;
/** Budget of each per-version cache (filtered lists, diffs), in bytes of identity body (×~1.3 with encodings). */
const CACHE_BYTES = 32 * 1024 * 1024;
const ITEM_END = Buffer.from("}");
const COMMA = Buffer.from(",");

/**
 * An insertion-ordered cache bounded by entry count and by total size: it forgets its oldest entries, and does not
 * keep an entry larger than half its budget (a broad query's list is made again rather than crowd out the
 * rest). Memory per dataset version stays bounded whatever queries clients send.
 */
class BoundedCache<V> {
  private readonly map = new Map<string, { value: V; size: number }>();
  private total = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}
  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }
  set(key: string, value: V, size: number): V {
    if (size > this.maxBytes / 2) return value;
    while (this.map.size > 0 && (this.map.size >= this.maxEntries || this.total + size > this.maxBytes)) {
      const [oldest, entry] = this.map.entries().next().value as [string, { size: number }];
      this.map.delete(oldest);
      this.total -= entry.size;
    }
    this.map.set(key, { value, size });
    this.total += size;
    return value;
  }
}

/**
 * The whole directory at one dataset version, with its responses prepared: the canonical export and the
 * unfiltered list are serialised and compressed when the snapshot is built; single businesses and filtered lists
 * are prepared on first request and kept until the next version.
 */
export class Snapshot {
  /** Dataset content version: sha-256 (hex) of the canonical export bytes. */
  readonly version: string;
  readonly entries: readonly Entry[];
  readonly byId: ReadonlyMap<string, Entry>;
  /** Deleted businesses (tombstones): id → deletion time. */
  readonly deleted: ReadonlyMap<string, string>;
  readonly canonical: Prepared;
  readonly list: Prepared;
  /** Display categories in use, sorted. */
  readonly categories: readonly string[];
  /** Time of the newest change the snapshot contains (ISO), or null for an empty change log. */
  readonly latestChangeAt: string | null;
  private readonly filtered = new BoundedCache<Prepared>(MAX_CACHED_QUERIES, CACHE_BYTES);
  private readonly diffs = new BoundedCache<Prepared>(64, CACHE_BYTES);

  constructor(
    readonly mark: ChangeLogMark,
    records: BusinessRecord[],
    deleted: Map<string, string>,
    latestChangeAt: string | null,
    private readonly baseUrl: string,
  ) {
    this.entries = records.map((record, position) => {
      return {
        record,
        json: Buffer.from(JSON.stringify(businessJsonLd(record, baseUrl))),
        categoryKey: foldText(record.category),
        position,
        types: selfAndAncestors(record.schemaType),
      };
    });
    this.byId = new Map(this.entries.map((e) => [e.record.id, e]));
    this.deleted = deleted;
    this.latestChangeAt = latestChangeAt;
    this.categories = [...new Set(records.map((r) => r.category))].sort((x, y) => x.localeCompare(y, "en-GB"));
    const canonicalBytes = this.itemList(`${trimSlash(baseUrl)}${CANONICAL_PATH}`, this.entries);
    this.version = createHash("sha256").update(canonicalBytes).digest("hex");
    this.canonical = new Prepared(canonicalBytes, this.version);
    this.list = new Prepared(this.itemList(`${trimSlash(baseUrl)}${LIST_PATH}`, this.entries), this.version);
  }

  /** Compresses the two large documents (done before the snapshot is published). */
  async prepare(): Promise<this> {
    await Promise.all([this.canonical.precompress(), this.list.precompress()]);
    return this;
  }

  /** A schema.org ItemList of the given entries, assembled from their prepared bytes. */
  private itemList(id: string, entries: readonly Entry[]): Buffer {
    const head = Buffer.from(
      `${JSON.stringify({ "@context": SCHEMA_ORG_CONTEXT, "@type": "ItemList", "@id": id, numberOfItems: entries.length }).slice(0, -1)},"itemListElement":[`,
    );
    const parts: Buffer[] = [head];
    entries.forEach((e, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(Buffer.from(`{"@type":"ListItem","position":${i + 1},"item":`), e.json, ITEM_END);
    });
    parts.push(Buffer.from("]}"));
    return Buffer.concat(parts);
  }

  /**
   * The entries matching all the given filters (AND). `matches` is what the database's full-text search found for
   * `q` (businesses/search.ts), best first, or null when `q` has no word to search for; the entries come in that
   * order, and in canonical (id) order without `q`. Ids the snapshot does not have (a business added since) are left
   * out.
   */
  select(filters: ListFilters, matches: readonly string[] | null = null): Entry[] {
    let result: readonly Entry[] = this.entries;
    if (filters.q !== undefined && matches !== null) {
      result = matches.flatMap((id) => {
        const entry = this.byId.get(id);
        return entry ? [entry] : [];
      });
    }
    if (filters.category !== undefined) {
      const key = foldText(filters.category);
      result = result.filter((e) => e.categoryKey === key);
    }
    if (filters.schemaType !== undefined) {
      const type = schemaClass(filters.schemaType);
      if (!type) {
        throw new AppError(
          "validation_failed",
          `schemaType "${filters.schemaType}" is not a schema.org type. Use a type name such as LocalBusiness, FoodEstablishment or Bakery.`,
          { fields: [{ field: "schemaType", message: "is not a schema.org type" }] },
        );
      }
      result = result.filter((e) => e.types.has(type));
    }
    return result as Entry[];
  }

  /** The list response for the given filters when it was prepared already (the unfiltered list always is). */
  preparedList(filters: ListFilters, search: string): Prepared | undefined {
    if (filters.category === undefined && filters.schemaType === undefined && filters.q === undefined) {
      return this.list;
    }
    return this.filtered.get(search);
  }

  /**
   * The list response for the given filters (`matches` as for `select`), in canonical (id) order; the unfiltered
   * list is the prepared one.
   */
  listFor(filters: ListFilters, search: string, matches: readonly string[] | null = null): Prepared {
    const ready = this.preparedList(filters, search);
    if (ready) return ready;
    const entries = [...this.select(filters, matches)].sort((a, b) => a.position - b.position);
    const id = `${trimSlash(this.baseUrl)}${LIST_PATH}?${search}`;
    const body = this.itemList(id, entries);
    return this.filtered.set(search, new Prepared(body, this.version, true), body.length);
  }

  /** The single-business response, prepared on first request. */
  single(entry: Entry): Prepared {
    entry.single ??= new Prepared(entry.json, this.version);
    return entry.single;
  }

  /** The diff since the start of a UTC day (`YYYY-MM-DD`, already validated), prepared once per version. */
  async diff(db: Kysely<DB>, since: string): Promise<Prepared> {
    const cached = this.diffs.get(since);
    if (cached) return cached;
    const from = `${since}T00:00:00.000Z`;
    const changes = (await changesSince(db, from)).filter((c) => c.seq <= this.mark.seq);
    const body = this.diffBody(since, from, changes);
    return this.diffs.set(
      since,
      new Prepared(body, `${this.version}.${this.mark.seq}.${this.mark.count}`),
      body.length,
    );
  }

  /** Assembles the diff from the businesses' prepared JSON (no re-serialisation of the businesses). */
  private diffBody(since: string, from: string, changes: ChangeEntry[]): Buffer {
    const addedIds = new Set(changes.filter((c) => c.kind === "added").map((c) => c.businessId));
    const touched = [...new Set(changes.map((c) => c.businessId))].sort();
    const added: Buffer[] = [];
    const updated: Buffer[] = [];
    const removed: Tombstone[] = [];
    for (const id of touched) {
      const live = this.byId.get(id);
      const deletedAt = this.deleted.get(id);
      if (live) (addedIds.has(id) ? added : updated).push(live.json);
      else if (deletedAt)
        removed.push({ "@id": businessIri(this.baseUrl, id), identifier: id, dateDeleted: deletedAt });
    }
    const to = this.latestChangeAt && this.latestChangeAt > from ? this.latestChangeAt : from;
    const head = {
      since,
      range: { from, to },
      datasetVersion: this.version,
      schemaVersion: DATASET_SCHEMA_VERSION,
      counts: { added: added.length, updated: updated.length, removed: removed.length },
    };
    const list = (items: Buffer[]) => items.flatMap((b, i) => (i === 0 ? [b] : [COMMA, b]));
    return Buffer.concat([
      Buffer.from(`${JSON.stringify(head).slice(0, -1)},"added":[`),
      ...list(added),
      Buffer.from('],"updated":['),
      ...list(updated),
      Buffer.from(`],"removed":${JSON.stringify(removed)}}`),
    ]);
  }
}

/** Reads the database and builds a snapshot of the current version. */
export async function buildSnapshot(db: Kysely<DB>, baseUrl: string): Promise<Snapshot> {
  // The mark is read first: if a change lands in between, the next check sees a newer mark and rebuilds.
  const mark = await changeLogMark(db);
  const latest = await db
    .selectFrom("business_changes")
    .select("changed_at")
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  const rows = await allBusinessRows(db);
  const deleted = new Map<string, string>();
  const live: BusinessRecord[] = [];
  for (const row of rows) {
    if (row.deleted_at !== null) deleted.set(row.id, row.deleted_at);
    else live.push(fromRow(row));
  }
  return new Snapshot(mark, live, deleted, latest?.changed_at ?? null, baseUrl).prepare();
}

/**
 * The dataset as this instance serves it. It checks the change log's mark at most once per `checkIntervalMs`
 * (on request, and from a background worker when the server runs) and rebuilds the snapshot when the mark moved,
 * so every instance sharing the database serves a change within about a second.
 */
export class BusinessDataset {
  private snapshot: Snapshot | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<Snapshot> | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly baseUrl: string,
    private readonly checkIntervalMs = 1000,
  ) {}

  /** The current snapshot when it was checked recently, without waiting; otherwise null. */
  fresh(): Snapshot | null {
    return this.snapshot && performance.now() - this.checkedAt < this.checkIntervalMs ? this.snapshot : null;
  }

  /** The current snapshot, checking the change log first when the last check is too old. */
  async current(): Promise<Snapshot> {
    return this.fresh() ?? this.refresh();
  }

  /** Checks the change log now and rebuilds when it moved. Concurrent callers share one check. */
  refresh(): Promise<Snapshot> {
    this.inflight ??= this.check().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  /** Resolves when no check is running (for a clean shutdown). */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => {});
  }

  /** Forget the last check, so the next request looks at the change log (after a change in this process). */
  invalidate(): void {
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }

  private async check(): Promise<Snapshot> {
    const started = performance.now();
    const mark = await changeLogMark(this.db);
    const current = this.snapshot;
    if (current && current.mark.seq === mark.seq && current.mark.count === mark.count) {
      this.checkedAt = started;
      return current;
    }
    const next = await buildSnapshot(this.db, this.baseUrl);
    this.snapshot = next;
    this.checkedAt = started;
    return next;
  }
}
