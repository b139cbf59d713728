import type { Kysely } from "kysely";
import type { Civic, Viewer } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { emailChangedMail, type SecurityChange, securityChangeMail, UNDO_DAYS } from "./mails.js";
import { findAccountByEmail, getAccount } from "./repository.js";
import { endAllSessions, endOtherSessions } from "./sessions.js";
import { endLinks, issueLink, openLink, useLink } from "../core/links.js";

/** The purpose of the undo link sent to the old address (core/links.ts). */
export const UNDO_PURPOSE = "email-change-undo";
const UNDO = UNDO_PURPOSE;

/**
 * Sensitive account changes (the email address, the password, passkeys) ask for a recent sign-in: a session started
 * by a sign-in (link, code, password or passkey) at most this many minutes ago. An older session, or a stolen
 * cookie, is sent to sign in again first; signing in starts a new session, which is then recent.
 */
export const RECENT_SIGN_IN_MINUTES = 15;

/** Whether the viewer's session was signed in recently enough for a sensitive change. */
export function signedInRecently(civic: Civic, viewer: Viewer): boolean {
  return civic.now().getTime() - Date.parse(viewer.signedInAt) <= RECENT_SIGN_IN_MINUTES * 60_000;
}

/** Where a sensitive change that needs a fresh sign-in sends the person: the sign-in page, then back. */
export function signInAgainPath(back = "/account"): string {
  return `/sign-in?again=1&next=${encodeURIComponent(back)}`;
}

export const SIGN_IN_AGAIN =
  `To change your email address, password or passkeys, please sign in again first (your sign-in on this device ` +
  `was more than ${RECENT_SIGN_IN_MINUTES} minutes ago). This makes sure it is you.`;

/**
 * After a change of how an account signs in (password, passkeys): every other session ends and the account's own
 * (confirmed) address is told, in the same transaction as the change when `db` is one.
 */
export async function afterSecurityChange(
  civic: Civic,
  db: Kysely<DB>,
  input: { accountId: string; keepSessionId: number | null; change: SecurityChange },
): Promise<void> {
  const account = await getAccount(db, input.accountId);
  if (!account) return;
  await endOtherSessions(db, account.id, input.keepSessionId);
  await enqueueMail(db, securityChangeMail(civic.site, account.email, input.change), civic.now());
}

/**
 * After an account's address changed from `oldEmail`: every other session ends, and the old address gets a link
 * that undoes the change. Call in the transaction that changes the address.
 */
export async function afterEmailChange(
  civic: Civic,
  db: Kysely<DB>,
  input: { accountId: string; oldEmail: string; keepSessionId: number | null },
): Promise<void> {
  const now = civic.now();
  await endOtherSessions(db, input.accountId, input.keepSessionId);
  const token = await issueLink(
    db,
    {
      purpose: UNDO,
      email: input.oldEmail,
      accountId: input.accountId,
      expiresAt: new Date(now.getTime() + UNDO_DAYS * 24 * 60 * 60_000),
      maxUses: 1,
    },
    now,
  );
  const link = `${civic.site.baseUrl}/account/email/undo/${token}`;
  await enqueueMail(db, emailChangedMail(civic.site, input.oldEmail, link), now);
}

export type UndoOutcome = { kind: "undone"; accountId: string } | { kind: "expired" } | { kind: "taken" };

/**
 * Uses an undo link: the account gets its old address back, every session of it ends (whoever holds them), and
 * pending confirmations of a new address are cancelled. Works without being signed in; once.
 */
export async function undoEmailChange(civic: Civic, token: unknown): Promise<UndoOutcome> {
  const at = civic.now();
  const now = at.toISOString();
  return civic.database.db.transaction().execute(async (tx) => {
    const opened = await openLink(tx, UNDO, token, at);
    if (!opened?.accountId) return { kind: "expired" } as const;
    // Someone has since taken the old address for another account (only its owner could): the link stays unused.
    const holder = await findAccountByEmail(tx, opened.email);
    if (holder && holder.id !== opened.accountId) return { kind: "taken" } as const;
    const undo = await useLink(tx, UNDO, token, at);
    if (!undo?.accountId) return { kind: "expired" } as const;
    await tx
      .updateTable("accounts")
      .set({ email: undo.email, email_verified_at: now, updated_at: now })
      .where("id", "=", undo.accountId)
      .execute();
    // Pending confirmations of a new address are cancelled for good.
    await endLinks(tx, { purpose: "email-change", accountId: undo.accountId }, at, "revoke");
    await endAllSessions(tx, undo.accountId);
    return { kind: "undone", accountId: undo.accountId } as const;
  });
}
