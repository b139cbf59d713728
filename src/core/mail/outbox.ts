import { createHash, randomUUID } from "node:crypto";
import type { Kysely, QueryCreator } from "kysely";
import type { DB } from "../db/schema.js";
import { addressHash, suppressedOf } from "./suppressions.js";

/** An email to send through the outbox. */
export interface OutgoingMail {
  /** What the message is, e.g. "report-confirmation", "report-forward". */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** Extra headers, e.g. List-Unsubscribe (names and values are ours, never user text). */
  headers?: Record<string, string>;
  /** Right-hand side of the Message-ID: the site's host name (default "civic.invalid"). */
  domain?: string;
  /**
   * The address of the person a message to someone else is about (e.g. the resident who wrote to a councillor).
   * Only its aboutHash is stored; erasing that person's data deletes the message whole, even when it does not
   * contain the address.
   */
  about?: string;
  /**
   * A key unique to this message (e.g. one report event and one recipient): a second message with the same key,
   * from another process or a retry, is not queued. Never personal data (hash an address).
   */
  key?: string;
}

/** The hash kept of an `about` address: SHA-256 of the normalised address (never the address itself). */
export function aboutHash(address: string): string {
  return createHash("sha256").update(`mail-about:${address.trim().toLowerCase()}`).digest("hex");
}

/**
 * Puts a message into the outbox; the mail worker sends it. Call it inside the transaction that creates what the
 * message is about, so the message exists exactly when the record does. Returns the outbox id, or null when the
 * address is suppressed (it refused mail permanently before) or a message with the same `key` is queued already,
 * in which case nothing is queued.
 */
export async function enqueueMail(db: Kysely<DB>, mail: OutgoingMail, now: Date): Promise<number | null> {
  const [queued] = await withoutSuppressed(db, [mail]);
  if (!queued) return null;
  if (queued.key !== undefined) {
    // A message already queued under this key (by another process or a retry) stays the only one.
    const row = await insertOutbox(db, [queued], now)
      .onConflict((oc) => oc.column("dedupe_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    return row?.id ?? null;
  }
  return (await insertOutbox(db, [queued], now).returning("id").executeTakeFirstOrThrow()).id;
}

/**
 * The messages whose address is not suppressed (one query). Read before the insert (even outside its
 * transaction, e.g. to make a report's writes one statement), an address suppressed in between is still safe: the
 * mail worker checks each message's address again before sending it.
 */
export async function withoutSuppressed(db: Kysely<DB>, mails: OutgoingMail[]): Promise<OutgoingMail[]> {
  if (mails.length === 0) return [];
  const suppressed = await suppressedOf(
    db,
    mails.map((m) => m.to),
  );
  return mails.filter((m) => !suppressed.has(addressHash(m.to)));
}

/** An outbox row for a message, as queued now. */
function outboxRow(mail: OutgoingMail, now: Date) {
  const at = now.toISOString();
  return {
    kind: mail.kind,
    to_address: mail.to,
    subject: mail.subject,
    text_body: mail.text,
    html_body: mail.html,
    // randomUUID draws from a pooled buffer of random bytes: several times cheaper than randomBytes per mail.
    message_id: `<${now.getTime().toString(36)}.${randomUUID().replaceAll("-", "")}@${mail.domain ?? "civic.invalid"}>`,
    created_at: at,
    attempts: 0,
    next_attempt_at: at,
    locked_until: null,
    last_error: null,
    sent_at: null,
    failed_at: null,
    headers: mail.headers ? JSON.stringify(mail.headers) : null,
    about_hash: mail.about ? aboutHash(mail.about) : null,
    dedupe_key: mail.key ?? null,
  };
}

/** The insert (not yet run) that queues these messages as they are: no suppression check; see withoutSuppressed. */
export function insertOutbox(db: QueryCreator<DB>, mails: OutgoingMail[], now: Date) {
  return db.insertInto("outbox").values(mails.map((mail) => outboxRow(mail, now)));
}

/**
 * The insert (not yet run) that queues one message unless its address is suppressed, decided in the statement
 * itself (`insert … select … where not exists`), so it can be part of a larger statement (a report's on
 * PostgreSQL). Its parameters take the types of the outbox columns they go to.
 */
export function insertOutboxUnlessSuppressed(db: QueryCreator<DB>, mail: OutgoingMail, now: Date) {
  const row = outboxRow(mail, now);
  const columns = Object.keys(row) as (keyof typeof row)[];
  return db
    .insertInto("outbox")
    .columns(columns)
    .expression(
      db
        .selectNoFrom((eb) => columns.map((column) => eb.val(row[column]).as(column)))
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom("mail_suppressions").select("address_hash").where("address_hash", "=", addressHash(mail.to)),
            ),
          ),
        ),
    );
}
