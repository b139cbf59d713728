import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { keyedHash, safeEqual } from "../core/tokens.js";
import { endLinks, issueLink, useLink } from "../core/links.js";
import { RETENTION } from "../core/jobs/retention.js";
import { markdownToHtml, markdownToText } from "../core/web/markdown.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { parseId } from "../core/http/ids.js";
import { layoutMail } from "../core/mail/layout.js";
import { enqueueMail, type OutgoingMail } from "../core/mail/outbox.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";

/** The consent sentence shown next to the subscribe button, stored with each subscription word for word. */
export function consentSentence(villageName: string): string {
  return `Send me the ${villageName} community newsletter by email, about once a month. I can stop it at any time with the link in every issue.`;
}

/** Recipients queued per batch of the send job. */
export const SEND_BATCH = 50;

/** The unsubscribe token of a subscriber: "<id>.<keyed hash of a random salt>". Only the salt is stored. */
export function unsubscribeToken(secret: string, id: number, salt: string): string {
  return `${id}.${keyedHash(secret, "newsletter-unsubscribe", `${id}:${salt}`)}`;
}

export function unsubscribeUrl(civic: Civic, id: number, salt: string): string {
  return `${civic.site.baseUrl}/newsletter/unsubscribe/${unsubscribeToken(civic.config.sessionSecret, id, salt)}`;
}

/** The subscriber an unsubscribe token names, or undefined (malformed, forged or unknown). */
export async function subscriberByUnsubscribeToken(civic: Civic, token: string) {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  const id = parseId(m?.[1]);
  if (id === null) return undefined;
  const row = await civic.database.db
    .selectFrom("newsletter_subscribers")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row || !safeEqual(unsubscribeToken(civic.config.sessionSecret, row.id, row.unsubscribe_salt), token)) {
    return undefined;
  }
  return row;
}

/**
 * True when `token` has the form of an unsubscribe token but its subscriber is gone: the retention job deletes a
 * subscription 30 days after it stopped (core/jobs/retention.ts), so a link in an old issue names nobody any more.
 * Such a link is answered "this subscription has ended" rather than "not valid" (one-click clients expect a 2xx).
 */
export async function subscriptionEnded(civic: Civic, token: string): Promise<boolean> {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  // An id no row can have (core/http/ids.ts) never named a subscription: that link is not valid, not ended.
  const id = parseId(m?.[1]);
  if (id === null) return false;
  const row = await civic.database.db
    .selectFrom("newsletter_subscribers")
    .select("id")
    .where("id", "=", id)
    .executeTakeFirst();
  return row === undefined;
}

/**
 * Starts a subscription (or restarts one that was never confirmed or was stopped) and mails the confirmation link.
 * An address that is already confirmed gets nothing new, and the answer is the same, so the form does not tell
 * who is subscribed. Nothing else is ever sent before the link is used.
 */
export async function subscribe(civic: Civic, email: string, record: RecordSubmission = async () => {}): Promise<void> {
  const now = civic.now();
  const at = now.toISOString();
  const consent = consentSentence(civic.site.villageName);
  await civic.database.db.transaction().execute(async (tx) => {
    await record(tx, "subscribe");
    const existing = await tx
      .selectFrom("newsletter_subscribers")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirst();
    if (existing?.status === "confirmed") return;
    let id: number;
    if (existing) {
      id = existing.id;
      await tx
        .updateTable("newsletter_subscribers")
        .set({ status: "unconfirmed", consent_text: consent, created_at: at })
        .where("id", "=", existing.id)
        .execute();
      // A new confirmation link replaces the one sent before.
      await endLinks(tx, { purpose: CONFIRM, ref: id }, now);
    } else {
      const row = await tx
        .insertInto("newsletter_subscribers")
        .values({
          email,
          status: "unconfirmed",
          unsubscribe_salt: randomBytes(16).toString("base64url"),
          consent_text: consent,
          created_at: at,
          confirmed_at: null,
          unsubscribed_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      id = row.id;
    }
    const token = await issueLink(
      tx,
      {
        purpose: CONFIRM,
        email,
        ref: id,
        expiresAt: new Date(now.getTime() + RETENTION.unconfirmedDays * 24 * 60 * 60_000),
        maxUses: 1,
      },
      now,
    );
    const link = `${civic.site.baseUrl}/newsletter/confirm/${token}`;
    await sendUnconfirmedMail(
      tx,
      { secret: civic.config.sessionSecret, now },
      layoutMail(
        civic.site,
        {
          kind: "newsletter-confirm",
          to: email,
          subject: `Confirm your subscription to the ${civic.site.villageName} newsletter`,
        },
        {
          heading: "Confirm your subscription",
          body: [
            `Someone (we hope you) asked to receive the ${civic.site.villageName} community newsletter at this address.`,
          ],
          action: {
            lead: "To confirm, open this link and press the button on the page:",
            label: "Confirm your subscription",
            url: link,
          },
          after: ["If it was not you, ignore this message: you will not be subscribed and we will not write again."],
          footer: { why: "You get this message because this address was typed into the newsletter form on our site." },
        },
      ),
    );
  });
}

/** The purpose of a confirmation link (core/links.ts): single-use, valid while an unconfirmed subscription is kept. */
export const NEWSLETTER_CONFIRM = "newsletter-confirm";
const CONFIRM = NEWSLETTER_CONFIRM;

/** Confirms a subscription by its link token (used once). Returns false when the token is unknown, used or expired. */
export async function confirmSubscription(civic: Civic, token: string): Promise<boolean> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const link = await useLink(tx, CONFIRM, token, now);
    if (!link || link.ref === null) return false;
    const result = await tx
      .updateTable("newsletter_subscribers")
      .set({ status: "confirmed", confirmed_at: now.toISOString(), unsubscribed_at: null })
      .where("id", "=", Number(link.ref))
      .where("status", "=", "unconfirmed")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  });
}

/** Whether the subscription a usable confirmation link names still waits for it (for the page it opens; reads only). */
export async function pendingConfirmation(db: Kysely<DB>, link: { ref: string | null }): Promise<boolean> {
  if (link.ref === null) return false;
  const row = await db
    .selectFrom("newsletter_subscribers")
    .select("id")
    .where("id", "=", Number(link.ref))
    .where("status", "=", "unconfirmed")
    .executeTakeFirst();
  return row !== undefined;
}

/** Stops the newsletter for a subscriber (idempotent). Pending sends of an issue in progress are skipped. */
export async function unsubscribe(civic: Civic, id: number): Promise<void> {
  await civic.database.db.transaction().execute(async (tx) => {
    await tx
      .updateTable("newsletter_subscribers")
      .set({ status: "unsubscribed", unsubscribed_at: civic.now().toISOString() })
      .where("id", "=", id)
      .where("status", "!=", "unsubscribed")
      .execute();
    await endLinks(tx, { purpose: CONFIRM, ref: id }, civic.now());
  });
}

/**
 * An issue's Markdown as HTML under the mail's heading (the issue's title, an `<h1>`): its top headings become
 * `<h2>` whatever level the editor wrote them at, so no heading level is skipped.
 */
function bodyUnderHeading(body: string): string {
  const levels = [...markdownToHtml(body, { headingOffset: 0 }).matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));
  return markdownToHtml(body, { headingOffset: levels.length > 0 ? 2 - Math.min(...levels) : 1 });
}

/** The mail of one issue for one recipient, with the RFC 8058 one-click unsubscribe headers. */
export function issueMail(
  civic: Civic,
  issue: { title: string; body: string },
  to: string,
  unsubscribe: string,
): OutgoingMail {
  const village = civic.site.villageName;
  return layoutMail(
    civic.site,
    {
      kind: "newsletter",
      to,
      subject: `${village} newsletter: ${issue.title}`.slice(0, 200),
      headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    },
    {
      heading: issue.title,
      body: [{ trusted: { html: bodyUnderHeading(issue.body), text: markdownToText(issue.body) } }],
      footer: {
        why: `You receive this because you subscribed to the ${village} community newsletter.`,
        stop: { label: "Unsubscribe", url: unsubscribe },
      },
    },
  );
}

/**
 * Marks an issue for sending to every confirmed subscriber. Pressing "send" twice changes nothing the second time:
 * only a draft moves to "sending". The send job (sendPendingIssues) does the rest.
 */
export async function startSending(civic: Civic, issueId: number): Promise<boolean> {
  const at = civic.now().toISOString();
  const result = await civic.database.db
    .updateTable("newsletter_issues")
    .set({ status: "sending", send_started_at: at, updated_at: at })
    .where("id", "=", issueId)
    .where("status", "=", "draft")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Queues the next batch of an issue being sent. Each recipient's outbox message is created in one transaction with
 * the (issue, subscriber) row of `newsletter_sends`, whose primary key makes a second one impossible: two processes,
 * a double press or a restart after a crash half-way never queue a recipient twice, and a batch cut short by a crash
 * rolls back whole and is queued again. Returns how many were queued; when none are left the issue is "sent".
 */
export async function queueNextBatch(civic: Civic, issueId: number, limit = SEND_BATCH): Promise<number> {
  const db = civic.database.db;
  const issue = await db.selectFrom("newsletter_issues").selectAll().where("id", "=", issueId).executeTakeFirst();
  if (issue?.status !== "sending") return 0;
  const recipients = await db
    .selectFrom("newsletter_subscribers as s")
    .leftJoin("newsletter_sends as n", (j) => j.onRef("n.subscriber_id", "=", "s.id").on("n.issue_id", "=", issueId))
    .select(["s.id", "s.email", "s.unsubscribe_salt"])
    .where("s.status", "=", "confirmed")
    .where("n.subscriber_id", "is", null)
    .orderBy("s.id")
    .limit(limit)
    .execute();
  let queued = 0;
  for (const r of recipients) {
    const now = civic.now();
    const done = await db.transaction().execute(async (tx) => {
      const claimed = await tx
        .insertInto("newsletter_sends")
        .values({ issue_id: issueId, subscriber_id: r.id, outbox_id: null, created_at: now.toISOString() })
        .onConflict((oc) => oc.columns(["issue_id", "subscriber_id"]).doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
      const outboxId = await enqueueMail(
        tx,
        issueMail(civic, issue, r.email, unsubscribeUrl(civic, r.id, r.unsubscribe_salt)),
        now,
      );
      if (outboxId !== null) {
        await tx
          .updateTable("newsletter_sends")
          .set({ outbox_id: outboxId })
          .where("issue_id", "=", issueId)
          .where("subscriber_id", "=", r.id)
          .execute();
      }
      return true;
    });
    if (done) queued++;
  }
  if (recipients.length < limit) {
    const at = civic.now().toISOString();
    await db
      .updateTable("newsletter_issues")
      .set({ status: "sent", sent_at: at, updated_at: at })
      .where("id", "=", issueId)
      .where("status", "=", "sending")
      .execute();
  }
  return queued;
}

/** Queues every issue being sent, batch by batch, until done or `signal` is aborted (the process stops). */
export async function sendPendingIssues(civic: Civic, signal?: AbortSignal): Promise<number> {
  const issues = await civic.database.db
    .selectFrom("newsletter_issues")
    .select("id")
    .where("status", "=", "sending")
    .orderBy("id")
    .execute();
  let total = 0;
  for (const { id } of issues) {
    for (;;) {
      if (signal?.aborted) return total;
      const before = total;
      total += await queueNextBatch(civic, id);
      const still = await civic.database.db
        .selectFrom("newsletter_issues")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirst();
      if (still?.status !== "sending" || total === before) break;
    }
  }
  return total;
}

/** The staff page's progress figures of an issue: recipients queued so far, sent by the outbox, failed. */
export async function sendProgress(db: Kysely<DB>, issueId: number) {
  const row = await db
    .selectFrom("newsletter_sends as n")
    .leftJoin("outbox as o", "o.id", "n.outbox_id")
    .select((eb) => [
      eb.fn.countAll<number>().as("queued"),
      eb.fn.count<number>("o.sent_at").as("sent"),
      eb.fn.count<number>("o.failed_at").as("failed"),
    ])
    .where("n.issue_id", "=", issueId)
    .executeTakeFirst();
  const confirmed = await db
    .selectFrom("newsletter_subscribers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "confirmed")
    .executeTakeFirst();
  return {
    queued: Number(row?.queued ?? 0),
    sent: Number(row?.sent ?? 0),
    failed: Number(row?.failed ?? 0),
    confirmed: Number(confirmed?.n ?? 0),
  };
}
