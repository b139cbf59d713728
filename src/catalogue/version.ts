import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";

/**
 * The catalogue's version: a one-row counter that database triggers bump on every insert, update or delete of a
 * category or department (migration 0017), whoever makes it: the admin pages, the demo seed, a CLI or plain SQL.
 * Reading it is one primary-key lookup, so every request can afford it, and every process sharing the database
 * sees a change at its next request.
 */
export async function catalogueVersion(db: Kysely<DB>): Promise<number> {
  return (await catalogueState(db)).version;
}

/**
 * The catalogue's version and when it last changed (the triggers stamp both, migration 0027): categories have no
 * change time of their own, so this is the Last-Modified of what is made of them.
 */
export async function catalogueState(db: Kysely<DB>): Promise<{ version: number; changedAt: Date | undefined }> {
  const row = await db
    .selectFrom("catalogue_version")
    .select(["version", "changed_at"])
    .where("id", "=", 1)
    .executeTakeFirst();
  const changedAt = row?.changed_at ? new Date(row.changed_at) : undefined;
  return {
    version: Number(row?.version ?? 0),
    changedAt: changedAt && !Number.isNaN(changedAt.getTime()) ? changedAt : undefined,
  };
}

/** At most this many prepared entries per process (service definitions are one per category). */
const MAX_ENTRIES = 1000;

/**
 * Values prepared from the catalogue (the Open311 services list, service definitions), kept per process and valid
 * for one catalogue version only. `get` reads the version first, drops everything when it moved, and builds what is
 * missing; so a change made by any process is served at once, and an unchanged catalogue costs one tiny query.
 */
export class CatalogueCache {
  private version = -1;
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly db: () => Kysely<DB>) {}

  async get<T>(
    key: string,
    build: (db: Kysely<DB>) => Promise<T>,
  ): Promise<{ value: T; version: number; changedAt: Date | undefined }> {
    const db = this.db();
    const { version, changedAt } = await catalogueState(db);
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (this.entries.has(key)) return { value: this.entries.get(key) as T, version, changedAt };
    const value = await build(db);
    // Keep it only if no change landed while it was built (a newer version means it may be stale already).
    if (this.version === version && (await catalogueVersion(db)) === version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
    return { value, version, changedAt };
  }
}
