import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { activeStrikes } from "./decisions.js";

/** A feature's item as moderation keys it: its moderated kind and id (a report's reference, a photo's number). */
export interface ItemKey {
  kind: string;
  id: string;
}

/** At most this many flags and decisions are shown for the items of one page (newest first). */
const MAX_ROWS = 200;
/** At most this many items of one author are counted for their flags (a hard cap on the query). */
const MAX_COUNTED_ITEMS = 1000;

export interface ItemFlag {
  kind: string;
  itemId: string;
  reason: string;
  note: string | null;
  at: string;
  /** When a moderator decided on the item (its flags were resolved); null while it waits in the queue. */
  resolvedAt: string | null;
}

export interface ItemDecision {
  kind: string;
  itemId: string;
  action: string;
  reason: string;
  at: string;
  /** The deciding staff member's name or address; null for the platform itself (auto-hide, suspension). */
  by: string | null;
}

/** Only pairs of one kind with ids: moderation's rows are matched on kind and id together. */
function byKind(items: readonly ItemKey[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { kind, id } of items) map.set(kind, [...(map.get(kind) ?? []), id]);
  return map;
}

/**
 * The flags ("Report this", with their reasons) and the moderation decisions on the given items, newest first: what
 * a staff view of the items shows of their moderation history. Who flagged is never shown.
 */
export async function moderationRecord(
  db: Kysely<DB>,
  items: readonly ItemKey[],
): Promise<{ flags: ItemFlag[]; decisions: ItemDecision[] }> {
  const groups = [...byKind(items)];
  if (groups.length === 0) return { flags: [], decisions: [] };
  const flags = await db
    .selectFrom("moderation_flags")
    .select(["kind", "item_id", "reason", "note", "created_at", "resolved_at"])
    .where((eb) => eb.or(groups.map(([kind, ids]) => eb.and([eb("kind", "=", kind), eb("item_id", "in", ids)]))))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(MAX_ROWS)
    .execute();
  const decisions = await db
    .selectFrom("moderation_decisions")
    .leftJoin("accounts", "accounts.id", "moderation_decisions.staff_account_id")
    .select([
      "moderation_decisions.kind",
      "moderation_decisions.item_id",
      "moderation_decisions.action",
      "moderation_decisions.reason",
      "moderation_decisions.created_at",
      "moderation_decisions.staff_account_id",
      "accounts.name",
      "accounts.email",
    ])
    .where((eb) =>
      eb.or(
        groups.map(([kind, ids]) =>
          eb.and([eb("moderation_decisions.kind", "=", kind), eb("moderation_decisions.item_id", "in", ids)]),
        ),
      ),
    )
    .orderBy("moderation_decisions.id", "desc")
    .limit(MAX_ROWS)
    .execute();
  return {
    flags: flags.map((f) => ({
      kind: f.kind,
      itemId: f.item_id,
      reason: f.reason,
      note: f.note,
      at: f.created_at,
      resolvedAt: f.resolved_at,
    })),
    decisions: decisions.map((d) => ({
      kind: d.kind,
      itemId: d.item_id,
      action: d.action,
      reason: d.reason,
      at: d.created_at,
      by: d.staff_account_id === null ? null : (d.name ?? d.email ?? "a former account"),
    })),
  };
}

/** How many open (unresolved) flags each of the given items of one kind has, by item id (absent: none). */
export async function openFlagCounts(
  db: Kysely<DB>,
  kind: string,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("moderation_flags")
    .select(["item_id", (eb) => eb.fn.countAll<string | number>().as("n")])
    .where("kind", "=", kind)
    .where("item_id", "in", ids.slice(0, 1000))
    .where("resolved_at", "is", null)
    .groupBy("item_id")
    .execute();
  return new Map(rows.map((r) => [r.item_id, Number(r.n)]));
}

/** What a moderator needs to know of an author's standing: counts only, no personal details. */
export interface AuthorStanding {
  /** Upheld strikes within the strike window (what suspension counts), and all strikes ever, overruled ones aside. */
  activeStrikes: number;
  strikes: number;
  /** Flags ever made on the given items of the author (resolved ones included). */
  flags: number;
  suspended: boolean;
}

/** The author's strikes and suspension, and how many flags the given items of theirs have had. */
export async function authorStanding(
  db: Kysely<DB>,
  accountId: string,
  items: readonly ItemKey[],
  now: Date,
): Promise<AuthorStanding> {
  const groups = [...byKind(items.slice(0, MAX_COUNTED_ITEMS))];
  const [strikes, flags, account, active] = await Promise.all([
    db
      .selectFrom("moderation_strikes")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .where("overruled_at", "is", null)
      .executeTakeFirstOrThrow(),
    groups.length === 0
      ? { n: 0 }
      : db
          .selectFrom("moderation_flags")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where((eb) => eb.or(groups.map(([kind, ids]) => eb.and([eb("kind", "=", kind), eb("item_id", "in", ids)]))))
          .executeTakeFirstOrThrow(),
    db.selectFrom("accounts").select("suspended_at").where("id", "=", accountId).executeTakeFirst(),
    activeStrikes(db, accountId, now),
  ]);
  return {
    activeStrikes: active,
    strikes: Number(strikes.n),
    flags: Number(flags.n),
    suspended: account !== undefined && account.suspended_at !== null,
  };
}
