import type { Kysely } from "kysely";
import type { DB, EmailChallengesTable } from "../core/db/schema.js";
import { endLinks, issueLink, type LiveLink, reopenUnused, useLink } from "../core/links.js";
import { hashToken, keyedHash, looksLikeToken, newCode, newToken, safeEqual } from "../core/tokens.js";

/**
 * Email challenges: a message with a link (and, for sign-in, a 6-digit code) that proves control of an address.
 * Links and codes are valid 30 minutes; sign-in and email-change links work once; five wrong codes end a sign-in
 * code. The link is an emailed link of the floor (core/links.ts, purpose = the challenge's purpose); for sign-in,
 * `email_challenges` keeps the hashes of the page's handle and of the code, and using the link or the code ends both.
 */
export const CHALLENGE_MINUTES = 30;
export const MAX_WRONG_CODES = 5;

/** The kinds of challenge mail: the first three are also email_challenges' purposes (only sign-in writes a row). */
export type ChallengePurpose = EmailChallengesTable["purpose"] | "add-address";
type Purpose = ChallengePurpose;

export interface IssuedChallenge {
  /** Goes into the link in the message. */
  token: string;
  /** Goes into the page that sent the message, to match a typed code. */
  handle: string;
  code: string;
}

export async function issueChallenge(
  db: Kysely<DB>,
  secret: string,
  input: { purpose: Purpose; email: string; accountId: string | null },
  now: Date,
): Promise<IssuedChallenge> {
  const handle = newToken();
  const code = newCode();
  const expiresAt = new Date(now.getTime() + CHALLENGE_MINUTES * 60_000);
  let ref: number | null = null;
  if (input.purpose === "sign-in") {
    const row = await db
      .insertInto("email_challenges")
      .values({
        purpose: input.purpose,
        email: input.email,
        account_id: input.accountId,
        handle_hash: hashToken(handle),
        code_hash: keyedHash(secret, "code", `${handle}:${code}`),
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
        used_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ref = Number(row.id);
  }
  const token = await issueLink(
    db,
    {
      purpose: input.purpose,
      email: input.email,
      accountId: input.accountId,
      ref,
      expiresAt,
      // A my-data link opens a page whose forms (download, withdraw, erase) each use it while it lasts.
      maxUses: input.purpose === "my-data" ? null : 1,
    },
    now,
  );
  return { token, handle, code };
}

/** Marks a sign-in challenge used; false when another request used it first (so it signs in exactly once). */
async function consume(db: Kysely<DB>, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("email_challenges")
    .set({ used_at: now.toISOString() })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Uses a sign-in link (the button on the page it opens was pressed): the link, or null when it is expired or was
 * used. Its challenge's code ends with it; a challenge whose code signed in first leaves the link nothing to do.
 */
export async function useSignInLink(db: Kysely<DB>, token: unknown, now: Date): Promise<LiveLink | null> {
  const link = await useLink(db, "sign-in", token, now);
  if (!link) return null;
  if (link.ref !== null && !(await consume(db, Number(link.ref), now))) return null;
  return link;
}

export interface LiveChallenge {
  id: number;
  email: string;
  accountId: string | null;
}

export type CodeOutcome = { ok: true; challenge: LiveChallenge } | { ok: false; reason: "wrong" | "ended" };

/**
 * Checks a typed code against the challenge the page's handle names; wrong codes count, the fifth ends it.
 * The attempt is reserved before the comparison by one conditional UPDATE … RETURNING (SQLite 3.35+ and
 * PostgreSQL alike), so however many guesses arrive at once, at most MAX_WRONG_CODES of them are ever compared.
 */
export async function checkCode(
  db: Kysely<DB>,
  secret: string,
  handle: unknown,
  code: string,
  now: Date,
): Promise<CodeOutcome> {
  if (!looksLikeToken(handle)) return { ok: false, reason: "ended" };
  const row = await db
    .updateTable("email_challenges")
    .set((eb) => ({ failed_attempts: eb("failed_attempts", "+", 1) }))
    .where("handle_hash", "=", hashToken(handle))
    .where("purpose", "=", "sign-in")
    .where("used_at", "is", null)
    .where("expires_at", ">", now.toISOString())
    .where("code_hash", "is not", null)
    .where("failed_attempts", "<", MAX_WRONG_CODES)
    .returning(["id", "email", "account_id", "code_hash", "failed_attempts"])
    .executeTakeFirst();
  if (!row?.code_hash) return { ok: false, reason: "ended" };
  const ref = { purpose: "sign-in", ref: row.id };
  if (/^\d{6}$/.test(code) && safeEqual(row.code_hash, keyedHash(secret, "code", `${handle}:${code}`))) {
    if (!(await consume(db, row.id, now))) return { ok: false, reason: "ended" };
    // The code signed in: the link in the same message is used up with it, for good.
    await endLinks(db, ref, now, "revoke");
    return { ok: true, challenge: { id: row.id, email: row.email, accountId: row.account_id } };
  }
  // The reserved attempt stays counted; the fifth also ends the link in the same message. It ends it by time, not
  // as used: nobody used that link, so the lock-out relief (prolongNewest) may give it back to the mailbox's owner.
  if (row.failed_attempts < MAX_WRONG_CODES) return { ok: false, reason: "wrong" };
  await endLinks(db, ref, now, "expire");
  return { ok: false, reason: "ended" };
}

/**
 * Makes the link of the newest message of this purpose sent to this address in the last day valid for another
 * CHALLENGE_MINUTES from now, if it was never used. Used when the address has had all the messages it may get for
 * now (the mail policy's cap): then that message was sent within the cap's window, and the link in it keeps working
 * for the person who owns the mailbox, whoever used the cap up. A link ended by wrong codes (typed by whoever asked
 * for it, maybe a stranger) comes back; its code stays ended. A link used, or whose code was used, never comes back
 * (core/links.ts reopenUnused).
 */
export async function prolongNewest(
  db: Kysely<DB>,
  input: { purpose: Purpose; email: string; accountId: string | null },
  now: Date,
): Promise<void> {
  await reopenUnused(db, input, now, new Date(now.getTime() + CHALLENGE_MINUTES * 60_000));
}

/** Removes challenges that ended more than a day ago (they hold addresses). */
export async function purgeChallenges(db: Kysely<DB>, now: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
  await db.deleteFrom("email_challenges").where("expires_at", "<", dayAgo).execute();
}
