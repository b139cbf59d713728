import { createHmac } from "node:crypto";
import type { Civic } from "../core/context.js";
import { AppError } from "../core/http/errors.js";
import { FixedWindowLimiter } from "../core/limits/fixed-window.js";
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
export const MAX_FLAG_NOTE = 1000;
/** Flags per client per hour (database-backed, so it holds across processes). */
export const FLAG_LIMIT = { name: "moderation-flag", max: 10, windowMs: 60 * 60 * 1000 };

/**
 * Who flagged: the account when signed in, otherwise a keyed hash of the client address with the day as salt, so
 * one client flags an item once and the table never holds an address (nor a value that links days together).
 */
export function flaggerOf(civic: Civic, viewer: { accountId: string } | null, clientIp: string): string {
  if (viewer) return `account:${viewer.accountId}`;
  const day = civic.now().toISOString().slice(0, 10);
  const digest = createHmac("sha256", civic.config.sessionSecret).update(`flag:${day}:${clientIp}`).digest("base64url");
  return `client:${digest}`;
}

export type FlagOutcome = "flagged" | "already-flagged" | "hidden";

/**
 * Records one flag ("Report this"). A second flag by the same account or client is accepted quietly and changes
 * nothing. Once AUTO_HIDE_FLAGS distinct flaggers have open flags on a public item, it is hidden until a moderator
 * reviews it.
 */
export async function flagItem(
  civic: Civic,
  input: {
    kind: string;
    id: string;
    reason: unknown;
    note: unknown;
    flagger: string;
    clientIp: string;
    /** The signed-in flagger: a banned account's flag is answered as usual and not recorded (ban-list.ts). */
    accountId?: string | null;
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
  const limiter = new FixedWindowLimiter(
    () => civic.database.db,
    civic.config.sessionSecret,
    () => civic.now(),
  );
  await limiter.enforce(
    [[FLAG_LIMIT, input.clientIp]],
    "You have reported a lot of items in a short time. Please try again later.",
  );
  if (await isBanned(civic.database.db, { accountId: input.accountId ?? null, addresses: [] })) return "flagged";
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const item = await loadItem(tx, now, input.kind, input.id);
    if (item.state !== "public") return "already-flagged";
    const inserted = await tx
      .insertInto("moderation_flags")
      .values({
        kind: item.kind,
        item_id: item.id,
        reason,
        note: note || null,
        flagger: input.flagger,
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.columns(["kind", "item_id", "flagger"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) return "already-flagged";
    const open = await tx
      .selectFrom("moderation_flags")
      .select((eb) => eb.fn.count<number>("flagger").distinct().as("n"))
      .where("kind", "=", item.kind)
      .where("item_id", "=", item.id)
      .where("resolved_at", "is", null)
      .executeTakeFirstOrThrow();
    const threshold = civic.config.moderation.autoHideFlags;
    if (Number(open.n) < threshold) return "flagged";
    await moderatedKind(item.kind)?.setState({ db: tx, now }, item.id, "hidden");
    const why = `Hidden automatically after ${threshold} people reported it; a moderator will review it.`;
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
