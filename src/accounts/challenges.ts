import type { Kysely } from "kysely";
import type { DB, EmailChallengesTable } from "../core/db/schema.js";
import { hashToken, keyedHash, looksLikeToken, newCode, newToken, safeEqual } from "../core/tokens.js";

/**
 * Email challenges: a message with a link (and, for sign-in, a 6-digit code) that proves control of an address.
 * Links and codes are valid 30 minutes; sign-in and email-change links work once; five wrong codes end a challenge.
 * The database keeps only hashes of the link token, the page handle and the code.
 */
export const CHALLENGE_MINUTES = 30;
export const MAX_WRONG_CODES = 5;

type Purpose = EmailChallengesTable["purpose"];

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
  const token = newToken();
  const handle = newToken();
  const code = newCode();
  await db
    .insertInto("email_challenges")
    .values({
      purpose: input.purpose,
      email: input.email,
      account_id: input.accountId,
      handle_hash: hashToken(handle),
      token_hash: hashToken(token),
      code_hash: input.purpose === "sign-in" ? keyedHash(secret, "code", `${handle}:${code}`) : null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CHALLENGE_MINUTES * 60_000).toISOString(),
      used_at: null,
    })
    .execute();
  return { token, handle, code };
}

export interface LiveChallenge {
  id: number;
  email: string;
  accountId: string | null;
}

/** A challenge by its link token, if it is still usable (not used, not expired, not ended by wrong codes). */
export async function findByToken(
  db: Kysely<DB>,
  purpose: Purpose,
  token: unknown,
  now: Date,
): Promise<LiveChallenge | null> {
  if (!looksLikeToken(token)) return null;
  const row = await db
    .selectFrom("email_challenges")
    .select(["id", "email", "account_id"])
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now.toISOString())
    .executeTakeFirst();
  return row ? { id: row.id, email: row.email, accountId: row.account_id } : null;
}

/** Marks a challenge used; false when another request used it first (so each link signs in exactly once). */
export async function consume(db: Kysely<DB>, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("email_challenges")
    .set({ used_at: now.toISOString() })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
  if (/^\d{6}$/.test(code) && safeEqual(row.code_hash, keyedHash(secret, "code", `${handle}:${code}`))) {
    if (!(await consume(db, row.id, now))) return { ok: false, reason: "ended" };
    return { ok: true, challenge: { id: row.id, email: row.email, accountId: row.account_id } };
  }
  // The reserved attempt stays counted; the fifth also ends the link in the same message. It ends it by time, not
  // as used: nobody used that link, so the lock-out relief (prolongNewest) may give it back to the mailbox's owner.
  if (row.failed_attempts < MAX_WRONG_CODES) return { ok: false, reason: "wrong" };
  await db
    .updateTable("email_challenges")
    .set({ expires_at: now.toISOString() })
    .where("id", "=", row.id)
    .where("used_at", "is", null)
    .execute();
  return { ok: false, reason: "ended" };
}

/**
 * Makes the link of the newest challenge sent to this address for this purpose in the last day valid for another
 * CHALLENGE_MINUTES from now, unless it was used. Used when the address has had all the messages it may get for now
 * (the mail policy's cap): then that message was sent within the cap's window, and the link in it keeps working for
 * the person who owns the mailbox, whoever used the cap up. A challenge ended by wrong codes (typed by whoever asked
 * for it, maybe a stranger) gets its link back; its code stays ended (checkCode counts the wrong codes). A link or
 * code that was used never comes back: only challenges never used (`used_at` null) are made valid again.
 */
export async function prolongNewest(
  db: Kysely<DB>,
  input: { purpose: Purpose; email: string; accountId: string | null },
  now: Date,
): Promise<void> {
  let newest = db
    .selectFrom("email_challenges")
    .select("id")
    .where("purpose", "=", input.purpose)
    .where("email", "=", input.email)
    .where("used_at", "is", null)
    .where("created_at", ">", new Date(now.getTime() - 24 * 60 * 60_000).toISOString())
    .orderBy("id", "desc")
    .limit(1);
  if (input.accountId) newest = newest.where("account_id", "=", input.accountId);
  const row = await newest.executeTakeFirst();
  if (!row) return;
  await db
    .updateTable("email_challenges")
    .set({ expires_at: new Date(now.getTime() + CHALLENGE_MINUTES * 60_000).toISOString() })
    .where("id", "=", row.id)
    .where("used_at", "is", null)
    .execute();
}

/** Removes challenges that ended more than a day ago (they hold addresses). */
export async function purgeChallenges(db: Kysely<DB>, now: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
  await db.deleteFrom("email_challenges").where("expires_at", "<", dayAgo).execute();
}
