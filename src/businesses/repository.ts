import type { Kysely, Transaction } from "kysely";
import type { Business, DB } from "../core/db/schema.js";
import { type BusinessInput, fromRow, sameContent, toRowFields } from "./model.js";

/** Where the change log stands: its newest sequence number and how many entries it has. */
export interface ChangeLogMark {
  seq: number;
  count: number;
}

/**
 * The change log's mark. The count matters as well as the newest seq: two transactions may take seqs 10 and 11 and
 * commit in the order 11, 10, and only the count shows that 10 arrived.
 */
export async function changeLogMark(db: Kysely<DB>): Promise<ChangeLogMark> {
  const row = await db
    .selectFrom("business_changes")
    .select((eb) => [eb.fn.max("seq").as("seq"), eb.fn.countAll<number>().as("count")])
    .executeTakeFirst();
  return { seq: Number(row?.seq ?? 0), count: Number(row?.count ?? 0) };
}

/** Every business row, tombstones included. */
export async function allBusinessRows(db: Kysely<DB>): Promise<Business[]> {
  return db.selectFrom("businesses").selectAll().orderBy("id").execute();
}

export interface ChangeEntry {
  seq: number;
  businessId: string;
  kind: "added" | "updated" | "removed";
  changedAt: string;
}

/** Change-log entries at or after `from` (an ISO timestamp), oldest first. */
export async function changesSince(db: Kysely<DB>, from: string): Promise<ChangeEntry[]> {
  const rows = await db
    .selectFrom("business_changes")
    .select(["seq", "business_id", "kind", "changed_at"])
    .where("changed_at", ">=", from)
    .orderBy("seq")
    .execute();
  return rows.map((r) => ({ seq: r.seq, businessId: r.business_id, kind: r.kind, changedAt: r.changed_at }));
}

export interface ApplySummary {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
}

const CHUNK = 200;

/**
 * Applies a validated set of businesses in one transaction: adds new ones (or brings back deleted ones), updates
 * changed ones, and with `prune` deletes (as tombstones) the live ones the set does not contain. Every change is
 * written to the change log at `at`.
 */
export async function applyBusinesses(
  db: Kysely<DB>,
  records: readonly BusinessInput[],
  options: { prune: boolean; at: string; onProgress?: (done: number, total: number) => void },
): Promise<ApplySummary> {
  const { at, prune } = options;
  return db.transaction().execute(async (tx) => {
    const existing = new Map((await tx.selectFrom("businesses").selectAll().execute()).map((r) => [r.id, r]));
    const summary: ApplySummary = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    const inserts: Business[] = [];
    const changes: { business_id: string; kind: "added" | "updated" | "removed"; changed_at: string }[] = [];
    let done = 0;
    for (const record of records) {
      const row = existing.get(record.id);
      const fields = toRowFields(record);
      if (!row) {
        inserts.push({ ...fields, created_at: at, updated_at: at, deleted_at: null } as Business);
        changes.push({ business_id: record.id, kind: "added", changed_at: at });
        summary.added++;
      } else if (row.deleted_at !== null) {
        await tx
          .updateTable("businesses")
          .set({ ...fields, created_at: at, updated_at: at, deleted_at: null })
          .where("id", "=", record.id)
          .execute();
        changes.push({ business_id: record.id, kind: "added", changed_at: at });
        summary.added++;
      } else if (!sameContent(fromRow(row), record)) {
        await tx
          .updateTable("businesses")
          .set({ ...fields, updated_at: at })
          .where("id", "=", record.id)
          .execute();
        changes.push({ business_id: record.id, kind: "updated", changed_at: at });
        summary.updated++;
      } else summary.unchanged++;
      done++;
      if (done % 1000 === 0) options.onProgress?.(done, records.length);
    }
    await insertInChunks(tx, inserts);
    if (prune) {
      const wanted = new Set(records.map((r) => r.id));
      const gone = [...existing.values()].filter((r) => r.deleted_at === null && !wanted.has(r.id)).map((r) => r.id);
      for (let i = 0; i < gone.length; i += CHUNK) {
        const ids = gone.slice(i, i + CHUNK);
        await tx.updateTable("businesses").set({ deleted_at: at, updated_at: at }).where("id", "in", ids).execute();
      }
      for (const id of gone) changes.push({ business_id: id, kind: "removed", changed_at: at });
      summary.removed = gone.length;
    }
    for (let i = 0; i < changes.length; i += CHUNK) {
      await tx
        .insertInto("business_changes")
        .values(changes.slice(i, i + CHUNK))
        .execute();
    }
    return summary;
  });
}

async function insertInChunks(tx: Transaction<DB>, rows: Business[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await tx
      .insertInto("businesses")
      .values(rows.slice(i, i + CHUNK))
      .execute();
  }
}

/** Deletes one business (a tombstone stays for the diff feed). Returns false when there was no live business. */
export async function removeBusiness(db: Kysely<DB>, id: string, at: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const result = await tx
      .updateTable("businesses")
      .set({ deleted_at: at, updated_at: at })
      .where("id", "=", id)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await tx.insertInto("business_changes").values({ business_id: id, kind: "removed", changed_at: at }).execute();
    return true;
  });
}

/** Adds or updates one business (used by tests and tools); returns what happened. */
export async function saveBusiness(db: Kysely<DB>, record: BusinessInput, at: string): Promise<ApplySummary> {
  return applyBusinesses(db, [record], { prune: false, at });
}
