import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { FixedWindowLimiter, rateLimited, type WindowLimit } from "../limits/fixed-window.js";
import { mailboxKey } from "../email-address.js";
import { enqueueMail, type OutgoingMail } from "./outbox.js";

/**
 * The one policy for mail to an address nobody has shown to be theirs: anything a visitor can make the platform
 * send by typing an address (report, idea, volunteer, newsletter, follow and councillor-contact confirmations) and
 * the messages that prove control of an address (sign-in, my-data, email change). Features queue such mail only
 * through `sendUnconfirmedMail` or `sendChallengeMail` (a report, written in one statement, asks
 * `admitConfirmation` first); test/trust/mail-volume.test.ts fails when a file outside its list of mail to
 * confirmed or staff addresses queues mail directly.
 *
 * Caps count per mailbox (`mailboxKey`: one person's inbox however the address is spelt), in the database, so every
 * process counts together. Windows are fixed: the clock hour and the UTC day. Over a cap, nothing is sent and the
 * caller answers exactly as if it had been (the record is kept; the answer must not tell whether an address
 * exists or how much mail it has had). The message itself must carry only our own words, links and references:
 * never text a visitor typed (the confirmation must not be a way to send someone a message of one's choosing).
 */
export const UNCONFIRMED_MAIL_CAPS = {
  /** Confirmations, whatever the feature and whoever asks. */
  confirmation: { perHour: 3, perDay: 10 },
  /** Sign-in, my-data and email-change messages that one client asks for one mailbox (beyond: a 429 for that client). */
  challengePerClient: { perHour: 5, perDay: 10 },
  /** Sign-in, my-data and email-change messages to one mailbox from all clients together (beyond: silently none). */
  challenge: { perHour: 10, perDay: 30 },
} as const;

/** Said wherever a visitor asks for a confirmation, whether or not one was sent (the answer never differs). */
export const MAIL_CAP_NOTICE = `To protect inboxes, we send at most ${UNCONFIRMED_MAIL_CAPS.confirmation.perHour} confirmation emails an hour and ${UNCONFIRMED_MAIL_CAPS.confirmation.perDay} a day to one address; beyond that none is sent.`;

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

function limits(name: string, caps: { perHour: number; perDay: number }): [WindowLimit, WindowLimit] {
  return [
    { name: `${name}-hour`, max: caps.perHour, windowMs: HOUR },
    { name: `${name}-day`, max: caps.perDay, windowMs: DAY },
  ];
}

const LIMITS = {
  confirmation: limits("mail-confirmation", UNCONFIRMED_MAIL_CAPS.confirmation),
  challengePerClient: limits("mail-challenge-client", UNCONFIRMED_MAIL_CAPS.challengePerClient),
  challenge: limits("mail-challenge", UNCONFIRMED_MAIL_CAPS.challenge),
};

/** Counts one message against each limit in turn; stops (and says no) at the first one that is used up. */
async function within(limiter: FixedWindowLimiter, checks: [WindowLimit, string][]): Promise<boolean> {
  for (const [limit, subject] of checks) {
    if (!(await limiter.hit(limit, subject)).allowed) return false;
  }
  return true;
}

export interface MailPolicyContext {
  /** The app's secret: counters keep only keyed hashes of mailboxes. */
  secret: string;
  now: Date;
}

/** The database-backed counters, on `db` (a transaction when the caller passes one) with the policy's clock. */
function limiterOn(db: Kysely<DB>, ctx: MailPolicyContext): FixedWindowLimiter {
  return new FixedWindowLimiter(
    () => db,
    ctx.secret,
    () => ctx.now,
  );
}

/**
 * Whether one more confirmation may go to `address` now, counting it if so. Counts on `db` (pass the transaction
 * that writes the record, so a rolled-back submission does not count).
 */
export async function admitConfirmation(db: Kysely<DB>, ctx: MailPolicyContext, address: string): Promise<boolean> {
  const limiter = limiterOn(db, ctx);
  const mailbox = mailboxKey(address);
  return within(
    limiter,
    LIMITS.confirmation.map((limit): [WindowLimit, string] => [limit, mailbox]),
  );
}

/**
 * Whether a sign-in, my-data or email-change message may go to `address` for `client` now, counting it if so.
 * One client asking too often for one mailbox gets a 429 (thrown): that refuses only this client. All clients
 * together beyond the mailbox's cap get "no" (false) with the usual answer, so nobody else can make the owner's own
 * request fail; the owner can still use a link already in the mailbox (the caller keeps it alive).
 */
export async function admitChallenge(
  db: Kysely<DB>,
  ctx: MailPolicyContext,
  address: string,
  client: string,
  message = "Too many messages asked for this address from here.",
): Promise<boolean> {
  const limiter = limiterOn(db, ctx);
  const mailbox = mailboxKey(address);
  for (const limit of LIMITS.challengePerClient) {
    const result = await limiter.hit(limit, `${mailbox} ${client}`);
    if (!result.allowed) throw rateLimited(message, result.retryAfterSeconds);
  }
  return within(
    limiter,
    LIMITS.challenge.map((limit): [WindowLimit, string] => [limit, mailbox]),
  );
}

/**
 * Queues a confirmation to an address nobody has confirmed, within the caps. Returns the outbox id, or null when
 * nothing was queued (over the cap, or the address is suppressed); callers answer the same either way.
 */
export async function sendUnconfirmedMail(
  db: Kysely<DB>,
  ctx: MailPolicyContext,
  mail: OutgoingMail,
): Promise<number | null> {
  if (!(await admitConfirmation(db, ctx, mail.to))) return null;
  return enqueueMail(db, mail, ctx.now);
}

/**
 * Queues a sign-in, my-data or email-change message to `to` for `client`, within the caps (see `admitChallenge`;
 * a 429 AppError for a client over its own cap). `compose` runs only when the message may go (it records the
 * challenge the message carries). Returns false when the mailbox's cap was reached and nothing was queued.
 */
export async function sendChallengeMail(
  db: Kysely<DB>,
  ctx: MailPolicyContext,
  input: { to: string; client: string; limitMessage?: string },
  compose: () => Promise<OutgoingMail>,
): Promise<boolean> {
  if (!(await admitChallenge(db, ctx, input.to, input.client, input.limitMessage))) return false;
  await enqueueMail(db, await compose(), ctx.now);
  return true;
}
