import { createHmac } from "node:crypto";
import { clientKey } from "../core/http/client-address.js";
import { type Kysely, sql } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { isPublic } from "../core/visibility.js";
import { loadItem, recordDecision, tellAuthor } from "./decisions.js";
import { moderatedKind } from "./registry.js";
import { isBanned } from "./ban-list.js";

export const FLAG_REASONS = {
  spam: "Spam or advertising",
  abusive: "Abusive or offensive",
  false: "False or misleading",
  personal: "Shows personal information",
  other: "Something else",
} as const;
export type FlagReason = keyof typeof FLAG_REASONS;

/** A flag's reason as people read it (a reason no longer offered shows as stored). */
export const flagReasonLabel = (reason: string): string => (FLAG_REASONS as Record<string, string>)[reason] ?? reason;
export const MAX_FLAG_NOTE = 1000;
/** Flags per client per hour (database-backed, so it holds across processes). */
export const FLAG_LIMIT = { name: "moderation-flag", max: 10, windowMs: 60 * 60 * 1000 };

/**
 * Auto-hide counts only independent flaggers: confirmed accounts (their address proven by signing in) at least
 * this many days old and not suspended, at most one per client address. Other flags only queue the item.
 */
export const FLAGGER_MIN_AGE_DAYS = 7;

/**
 * A keyed hash of the client address (IPv6 by /64, core/http/client-address.ts) salted with the item: the same client gets the same key on one
 * item whatever the day, and different keys on different items, so the table never holds an address nor a value
 * that links one client's flags together.
 */
export function flagClientKey(civic: Civic, kind: string, id: string, clientIp: string): string {
  return createHmac("sha256", civic.config.sessionSecret)
    .update(`flag:${kind}:${id}:${clientKey(clientIp)}`)
    .digest("base64url");
}

/** Who flagged: the account when signed in, otherwise the client (see flagClientKey), so one client flags once. */
export function flaggerOf(civic: Civic, viewer: { accountId: string } | null, clientKey: string): string {
  return viewer ? `account:${viewer.accountId}` : `client:${clientKey}`;
}

/**
 * How many independent flaggers have open flags on an item: flags from confirmed, unsuspended accounts at least
 * FLAGGER_MIN_AGE_DAYS old, counted once per client (flags from before client keys were kept count once each).
 */
export async function independentFlaggers(db: Kysely<DB>, kind: string, id: string, now: Date): Promise<number> {
  const oldEnough = new Date(now.getTime() - FLAGGER_MIN_AGE_DAYS * 86_400_000).toISOString();
  const rows = await db
    .selectFrom("moderation_flags")
    .innerJoin("accounts", (join) =>
      join.on(sql<string>`${"account:"} || ${sql.ref("accounts.id")}`, "=", sql.ref("moderation_flags.flagger")),
    )
    .select(["moderation_flags.flagger", "moderation_flags.client_key"])
    .where("moderation_flags.kind", "=", kind)
    .where("moderation_flags.item_id", "=", id)
    .where("moderation_flags.resolved_at", "is", null)
    .where("accounts.email_verified_at", "is not", null)
    .where("accounts.suspended_at", "is", null)
    .where("accounts.created_at", "<=", oldEnough)
    .execute();
  return new Set(rows.map((r) => r.client_key ?? r.flagger)).size;
}

export type FlagOutcome = "flagged" | "already-flagged" | "hidden";

/**
 * Records one flag ("Report this"). A second flag by the same account or client is accepted quietly and changes
 * nothing. Every open flag puts the item in the moderation queue; once AUTO_HIDE_FLAGS independent flaggers (see
 * FLAGGER_MIN_AGE_DAYS) have open flags on a public item, it is hidden until a moderator reviews it.
 */
export async function flagItem(
  civic: Civic,
  input: {
    kind: string;
    id: string;
    reason: unknown;
    note: unknown;
    viewer: { accountId: string } | null;
    clientIp: string;
  },
): Promise<FlagOutcome> {
  const reason = typeof input.reason === "string" ? input.reason : "";
  if (!Object.hasOwn(FLAG_REASONS, reason)) {
    throw new AppError("validation_failed", "Choose why this should be looked at.", {
      fields: [{ field: "reason", message: "choose one of the reasons" }],
    });
  }
  const note = typeof input.note === "string" ? input.note.trim() : "";
  if (note.length > MAX_FLAG_NOTE) {
    throw new AppError("validation_failed", `Please keep the details under ${MAX_FLAG_NOTE} characters.`, {
      fields: [{ field: "note", message: `must be at most ${MAX_FLAG_NOTE} characters` }],
    });
  }
  const limiter = civic.limits;
  await limiter.enforce(
    [[FLAG_LIMIT, input.clientIp]],
    "You have reported a lot of items in a short time. Please try again later.",
  );
  if (await isBanned(civic.database.db, { accountId: input.viewer?.accountId ?? null, addresses: [] }))
    return "flagged";
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const item = await loadItem(civic, tx, now, input.kind, input.id);
    if (!isPublic(item.state)) return "already-flagged";
    const clientKey = flagClientKey(civic, item.kind, item.id, input.clientIp);
    const inserted = await tx
      .insertInto("moderation_flags")
      .values({
        kind: item.kind,
        item_id: item.id,
        reason,
        note: note || null,
        flagger: flaggerOf(civic, input.viewer, clientKey),
        client_key: clientKey,
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.columns(["kind", "item_id", "flagger"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) return "already-flagged";
    const threshold = civic.config.moderation.autoHideFlags;
    if ((await independentFlaggers(tx, item.kind, item.id, now)) < threshold) return "flagged";
    await moderatedKind(civic, item.kind)?.setState({ db: tx, now }, item.id, "hidden");
    const why = `Hidden automatically after ${threshold} independent people reported it; a moderator will review it.`;
    await recordDecision(
      tx,
      {
        kind: item.kind,
        itemId: item.id,
        action: "auto-hide",
        reason: why,
        actor: { accountId: null, role: null },
        subject: item.authorAccountId,
      },
      now,
    );
    await tellAuthor(civic, tx, item, "auto-hide", why);
    return "hidden";
  });
}
