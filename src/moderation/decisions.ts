import type { Kysely } from "kysely";
import { recordAudit } from "../core/staff/audit.js";
import { endAllSessions } from "../accounts/index.js";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { formId } from "../core/http/ids.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { type AccountSubject, authorise, can, PLATFORM, type PolicyViewer, type StaffRole } from "../core/policy.js";
import { decisionMail, suspensionMail, unsuspensionMail } from "./mails.js";
import { noteModerationChange } from "./generation.js";
import { isPublic } from "../core/visibility.js";
import { type ModeratedItem, type ModerationState, moderatedKind, moderatedKinds } from "./registry.js";
import { keepAnAdmin } from "../accounts/index.js";

export const STRIKE_WINDOW_DAYS = 90;
export const MAX_REASON = 2000;
export const MODERATOR_ACTIONS = ["hide", "unhide", "remove", "dismiss"] as const;
export type ModeratorAction = (typeof MODERATOR_ACTIONS)[number];

/** Who acted: a staff account, or null for the platform itself (auto-hide, automatic suspension). */
export interface Actor {
  accountId: string | null;
  role: StaffRole | null;
}

/** The actor as the policy sees it (the platform itself, role null, has no authority of its own). */
function viewerOf(actor: Actor): PolicyViewer | null {
  return actor.role ? { accountId: actor.accountId, role: actor.role } : null;
}

/** An account as the policy's subject, or null when there is no such account. */
async function accountSubject(db: Kysely<DB>, id: string): Promise<AccountSubject | null> {
  const row = await db.selectFrom("accounts").select(["id", "role"]).where("id", "=", id).executeTakeFirst();
  return row ? { type: "account", id: row.id, role: row.role } : null;
}

/** A required, bounded reason; throws a field error otherwise. */
export function requireReason(raw: unknown, field = "reason"): string {
  const reason = typeof raw === "string" ? raw.trim() : "";
  if (!reason) {
    throw new AppError("validation_failed", "Give a reason: it is recorded and told to the person concerned.", {
      fields: [{ field, message: "a reason is required" }],
    });
  }
  if (reason.length > MAX_REASON) {
    throw new AppError("validation_failed", `The reason must be at most ${MAX_REASON} characters.`, {
      fields: [{ field, message: `must be at most ${MAX_REASON} characters` }],
    });
  }
  return reason;
}

export async function loadItem(
  civic: Pick<Civic, "features">,
  db: Kysely<DB>,
  now: Date,
  kind: string,
  id: string,
): Promise<ModeratedItem> {
  const k = moderatedKind(civic, kind);
  const item = k ? await k.load({ db, now }, id) : null;
  if (!item) throw new AppError("not_found", "There is no such item to moderate: it may have been deleted.");
  return item;
}

async function record(
  db: Kysely<DB>,
  d: { kind: string; itemId: string; action: string; reason: string; actor: Actor; subject: string | null },
  now: Date,
): Promise<number> {
  const row = await db
    .insertInto("moderation_decisions")
    .values({
      kind: d.kind,
      item_id: d.itemId,
      action: d.action,
      reason: d.reason,
      staff_account_id: d.actor.accountId,
      subject_account_id: d.subject,
      created_at: now.toISOString(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  noteModerationChange();
  await recordAudit(db, {
    actorId: d.actor.accountId,
    action: `moderation.${d.action}`,
    itemType: d.kind,
    itemId: d.itemId,
    reason: d.reason,
    at: now,
  });
  return Number(row.id);
}

async function tellAuthor(civic: Civic, db: Kysely<DB>, item: ModeratedItem, action: string, reason: string) {
  if (!item.authorEmail) return;
  const mail = decisionMail(civic.site, item.authorEmail, {
    action,
    subjectRef: item.subjectRef,
    reason,
    publicUrl: `${civic.config.baseUrl}${item.publicPath}`,
  });
  if (mail) await enqueueMail(db, mail, civic.now());
}

/** Resolves an item's open flags (a moderator has looked at it). */
async function resolveFlags(db: Kysely<DB>, kind: string, id: string, now: Date) {
  await db
    .updateTable("moderation_flags")
    .set({ resolved_at: now.toISOString() })
    .where("kind", "=", kind)
    .where("item_id", "=", id)
    .where("resolved_at", "is", null)
    .execute();
}

const STATE_OF: Record<Exclude<ModeratorAction, "dismiss">, ModerationState> = {
  hide: "hidden",
  unhide: "public",
  remove: "removed",
};

/**
 * A moderator's decision on an item: hide, unhide, remove, or dismiss the flags (keep it as it is). The reason is
 * required and recorded; the item's flags are resolved; hiding or removing something of an account holder upholds
 * a strike against them; the author is told what happened and why.
 */
export async function moderate(
  civic: Civic,
  input: { kind: string; id: string; action: string; reason: unknown; actor: Actor },
): Promise<{ item: ModeratedItem; suspended: boolean }> {
  if (!(MODERATOR_ACTIONS as readonly string[]).includes(input.action)) {
    throw new AppError("validation_failed", "Choose what to do with the item.", {
      fields: [{ field: "action", message: "must be hide, unhide, remove or dismiss" }],
    });
  }
  const action = input.action as ModeratorAction;
  const reason = requireReason(input.reason);
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const item = await loadItem(civic, tx, now, input.kind, input.id);
    const kind = moderatedKind(civic, item.kind);
    if (!kind) throw new AppError("not_found", "There is no such kind of item.");
    const subject = { type: "item", authorId: item.authorAccountId, authorRole: null, state: item.state } as const;
    if (action !== "dismiss" && !can(viewerOf(input.actor), "item.moderate", subject)) {
      throw new AppError("validation_failed", "This item was removed; only an admin can change that.", {
        fields: [{ field: "action", message: "removed items can be changed by an admin only" }],
      });
    }
    if (action !== "dismiss") {
      await kind.setState({ db: tx, now, actorAccountId: input.actor.accountId }, item.id, STATE_OF[action]);
    }
    await resolveFlags(tx, item.kind, item.id, now);
    const decisionId = await record(
      tx,
      { kind: item.kind, itemId: item.id, action, reason, actor: input.actor, subject: item.authorAccountId },
      now,
    );
    let suspended = false;
    if ((action === "hide" || action === "remove") && isPublic(item.state) && item.authorAccountId) {
      suspended = await strike(civic, tx, item.authorAccountId, decisionId, now, input.actor);
    } else if ((action === "hide" || action === "remove") && item.authorAccountId && item.state === "hidden") {
      // Upholding an auto-hide (or a hide by another moderator) counts as well, once per item.
      const earlier = await tx
        .selectFrom("moderation_strikes")
        .innerJoin("moderation_decisions", "moderation_decisions.id", "moderation_strikes.decision_id")
        .select("moderation_strikes.id")
        .where("moderation_decisions.kind", "=", item.kind)
        .where("moderation_decisions.item_id", "=", item.id)
        .executeTakeFirst();
      if (!earlier) suspended = await strike(civic, tx, item.authorAccountId, decisionId, now, input.actor);
    }
    if (action === "hide" || action === "remove") await tellAuthor(civic, tx, item, action, reason);
    return { item: { ...item, state: action === "dismiss" ? item.state : STATE_OF[action] }, suspended };
  });
}

/** Moderator redaction of a report's title and description; the reporter's original is kept (first one only). */
export async function redactReport(
  civic: Civic,
  input: { reference: string; title: unknown; description: unknown; reason: unknown; actor: Actor },
): Promise<void> {
  const reason = requireReason(input.reason);
  const title = typeof input.title === "string" ? input.title.trim() : "";
  const description = typeof input.description === "string" ? input.description.trim() : "";
  const fields = [];
  if (!title || title.length > 200) fields.push({ field: "title", message: "must be 1 to 200 characters" });
  if (!description || description.length > 5000) {
    fields.push({ field: "description", message: "must be 1 to 5,000 characters" });
  }
  if (fields.length > 0) throw new AppError("validation_failed", "Check the edited text.", { fields });
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    const item = await loadItem(civic, tx, now, "report", input.reference);
    // The report's own kind changes its text (through its one path for events); moderation records the decision.
    const kind = moderatedKind(civic, item.kind);
    if (!kind?.redact) throw new AppError("not_found", "This item's text cannot be edited.");
    await kind.redact({ db: tx, now, actorAccountId: input.actor.accountId }, item.id, { title, description });
    await record(
      tx,
      { kind: "report", itemId: item.id, action: "redact", reason, actor: input.actor, subject: item.authorAccountId },
      now,
    );
    await resolveFlags(tx, "report", item.id, now);
    await tellAuthor(civic, tx, item, "redact", reason);
  });
}

/** Admin only: puts the reporter's original title and description back. */
export async function restoreReportText(
  civic: Civic,
  input: { reference: string; reason: unknown; actor: Actor },
): Promise<void> {
  authorise(
    viewerOf(input.actor),
    "staff.administer",
    PLATFORM,
    "This is for administrators only: only an admin can restore the original text.",
  );
  const reason = requireReason(input.reason);
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    const item = await loadItem(civic, tx, now, "report", input.reference);
    const kind = moderatedKind(civic, item.kind);
    if (!kind?.restoreText) throw new AppError("not_found", "This item's text cannot be restored.");
    await kind.restoreText({ db: tx, now, actorAccountId: input.actor.accountId }, item.id);
    await record(
      tx,
      { kind: "report", itemId: item.id, action: "restore", reason, actor: input.actor, subject: item.authorAccountId },
      now,
    );
  });
}

/** Upheld strikes (not overruled) of an account within the strike window. */
export async function activeStrikes(db: Kysely<DB>, accountId: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - STRIKE_WINDOW_DAYS * 86_400_000).toISOString();
  const row = await db
    .selectFrom("moderation_strikes")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("overruled_at", "is", null)
    .where("created_at", ">=", since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Records a strike when the policy lets the deciding actor's decision count against the account (never against a
 * staff account by a lower or equal role); suspends the account when it reaches SUSPEND_AFTER_STRIKES and the
 * policy allows that too. Returns whether it suspended.
 */
async function strike(civic: Civic, db: Kysely<DB>, accountId: string, decisionId: number, now: Date, actor: Actor) {
  const target = await accountSubject(db, accountId);
  if (!target || !can(viewerOf(actor), "account.strike", target)) return false;
  await db
    .insertInto("moderation_strikes")
    .values({ account_id: accountId, decision_id: decisionId, created_at: now.toISOString() })
    .execute();
  const n = await activeStrikes(db, accountId, now);
  if (n < civic.config.moderation.suspendAfterStrikes) return false;
  if (!can(viewerOf(actor), "account.auto-suspend", target)) return false;
  const reason =
    `Automatic: ${n} of your contributions were hidden or removed by the moderators within ${STRIKE_WINDOW_DAYS} ` +
    `days, which breaches the terms of use.`;
  return suspendWithin(civic, db, { accountId, reason, hideContent: false, actor: { accountId: null, role: null } });
}

/**
 * Admin: overrules a strike (it no longer counts); the reason is recorded. `strikeId` may be the form's text: it is
 * read as an id only once the actor may do this (a 400 when it is not one). Returns the strike's id.
 */
export async function overruleStrike(
  civic: Civic,
  input: { strikeId: unknown; reason: unknown; actor: Actor },
): Promise<number> {
  authorise(
    viewerOf(input.actor),
    "staff.administer",
    PLATFORM,
    "This is for administrators only: only an admin can overrule a strike.",
  );
  const strikeId = formId(input.strikeId, "strike");
  const reason = requireReason(input.reason);
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable("moderation_strikes")
      .set({ overruled_at: now.toISOString(), overruled_by: input.actor.accountId, overrule_reason: reason })
      .where("id", "=", strikeId)
      .where("overruled_at", "is", null)
      .returning(["account_id"])
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "There is no such strike, or it was overruled already.");
    await record(
      tx,
      {
        kind: "strike",
        itemId: String(strikeId),
        action: "overrule",
        reason,
        actor: input.actor,
        subject: row.account_id,
      },
      now,
    );
  });
  return strikeId;
}

async function suspendWithin(
  civic: Civic,
  db: Kysely<DB>,
  input: { accountId: string; reason: string; hideContent: boolean; actor: Actor },
): Promise<boolean> {
  const now = civic.now();
  const account = await db
    .updateTable("accounts")
    .set({ suspended_at: now.toISOString(), suspended_reason: input.reason, updated_at: now.toISOString() })
    .where("id", "=", input.accountId)
    .where("suspended_at", "is", null)
    .returning(["email"])
    .executeTakeFirst();
  if (!account) return false;
  await endAllSessions(db, input.accountId);
  await record(
    db,
    {
      kind: "account",
      itemId: input.accountId,
      action: "suspend",
      reason: input.reason,
      actor: input.actor,
      subject: input.accountId,
    },
    now,
  );
  if (input.hideContent) {
    for (const kind of moderatedKinds(civic)) {
      for (const id of (await kind.itemsOf?.({ db, now }, input.accountId)) ?? []) {
        await kind.setState({ db, now, actorAccountId: input.actor.accountId }, id, "hidden");
        await record(
          db,
          {
            kind: kind.kind,
            itemId: id,
            action: "hide",
            reason: `Hidden with the suspension of its author: ${input.reason}`,
            actor: input.actor,
            subject: input.accountId,
          },
          now,
        );
      }
    }
  }
  await enqueueMail(db, suspensionMail(civic.site, account.email, input.reason), now);
  return true;
}

/** Suspends an account: its sessions end at once, it cannot sign in or post, and it is told why and how to appeal. */
export async function suspendAccount(
  civic: Civic,
  input: { accountId: string; reason: unknown; hideContent: boolean; actor: Actor },
): Promise<void> {
  const reason = requireReason(input.reason);
  await civic.database.db.transaction().execute(async (tx) => {
    const account = await tx
      .selectFrom("accounts")
      .select(["id", "role", "suspended_at"])
      .where("id", "=", input.accountId)
      .executeTakeFirst();
    if (!account) throw new AppError("not_found", "There is no such account.");
    authorise(viewerOf(input.actor), "account.suspend", { type: "account", id: account.id, role: account.role });
    if (account.suspended_at !== null) {
      throw new AppError("validation_failed", "This account is suspended already.", {
        fields: [{ field: "reason", message: "the account is suspended already" }],
      });
    }
    // Refuses when this would leave no active admin (it asks the policy who administers).
    await keepAnAdmin(tx, account.id, "reason");
    await suspendWithin(civic, tx, { ...input, reason });
  });
}

export async function unsuspendAccount(
  civic: Civic,
  input: { accountId: string; reason: unknown; actor: Actor },
): Promise<void> {
  const reason = requireReason(input.reason);
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    const target = await accountSubject(tx, input.accountId);
    if (!target) throw new AppError("not_found", "There is no suspended account with this id.");
    authorise(viewerOf(input.actor), "account.unsuspend", target);
    const account = await tx
      .updateTable("accounts")
      .set({ suspended_at: null, suspended_reason: null, updated_at: now.toISOString() })
      .where("id", "=", input.accountId)
      .where("suspended_at", "is not", null)
      .returning(["email"])
      .executeTakeFirst();
    if (!account) throw new AppError("not_found", "There is no suspended account with this id.");
    await record(
      tx,
      {
        kind: "account",
        itemId: input.accountId,
        action: "unsuspend",
        reason,
        actor: input.actor,
        subject: input.accountId,
      },
      now,
    );
    await enqueueMail(tx, unsuspensionMail(civic.site, account.email), now);
  });
}

export { record as recordDecision, resolveFlags, tellAuthor };
