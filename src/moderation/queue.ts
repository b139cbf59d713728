import type { Civic } from "../core/context.js";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { independentFlaggers } from "./flags.js";
import { moderatedKind } from "./registry.js";
import type { ModeratedItem, ModeratedPreview } from "./registry.js";

/** The queue shows at most this many items per page view (oldest flags first). */
export const QUEUE_LIMIT = 100;

export interface QueueEntry {
  item: ModeratedItem;
  flags: { reason: string; note: string | null; at: string }[];
  /** How many of the flaggers count towards auto-hide (confirmed accounts of some age, one per client). */
  independent: number;
  /** The item's picture and place, from its kind (a report's or photo's thumbnail and place in words). */
  preview: ModeratedPreview | null;
}

/** Items with flags no moderator has looked at yet (auto-hidden ones included), oldest first. */
export async function moderationQueue(
  civic: Pick<Civic, "features">,
  db: Kysely<DB>,
  now: Date,
): Promise<QueueEntry[]> {
  const rows = await db
    .selectFrom("moderation_flags")
    .select(["kind", "item_id", (eb) => eb.fn.min("created_at").as("first")])
    .where("resolved_at", "is", null)
    .groupBy(["kind", "item_id"])
    .orderBy("first")
    .limit(QUEUE_LIMIT)
    .execute();
  const entries: QueueEntry[] = [];
  for (const row of rows) {
    const kind = moderatedKind(civic, row.kind);
    const item = await kind?.load({ db, now }, row.item_id);
    if (!kind || !item) continue;
    const flags = await db
      .selectFrom("moderation_flags")
      .select(["reason", "note", "created_at as at"])
      .where("kind", "=", row.kind)
      .where("item_id", "=", row.item_id)
      .where("resolved_at", "is", null)
      .orderBy("created_at")
      .limit(50)
      .execute();
    entries.push({
      item,
      flags,
      independent: await independentFlaggers(db, row.kind, row.item_id, now),
      preview: (await kind.preview?.({ db, now }, item.id)) ?? null,
    });
  }
  return entries;
}

/** Recent decisions for the page's "recently decided" list. */
export async function recentDecisions(db: Kysely<DB>, limit = 30) {
  return db.selectFrom("moderation_decisions").selectAll().orderBy("id", "desc").limit(limit).execute();
}

/** Strikes and suspension state of an account (the account page of the moderation console). */
export async function accountModeration(db: Kysely<DB>, accountId: string) {
  const account = await db
    .selectFrom("accounts")
    .select(["id", "email", "role", "suspended_at", "suspended_reason"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!account) return null;
  const strikes = await db
    .selectFrom("moderation_strikes")
    .innerJoin("moderation_decisions", "moderation_decisions.id", "moderation_strikes.decision_id")
    .select([
      "moderation_strikes.id",
      "moderation_strikes.created_at",
      "moderation_strikes.overruled_at",
      "moderation_strikes.overrule_reason",
      "moderation_decisions.kind",
      "moderation_decisions.item_id",
      "moderation_decisions.action",
      "moderation_decisions.reason",
    ])
    .where("moderation_strikes.account_id", "=", accountId)
    .orderBy("moderation_strikes.id", "desc")
    .limit(200)
    .execute();
  return { account, strikes };
}
