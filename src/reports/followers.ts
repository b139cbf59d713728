import type { Kysely } from "kysely";
import { hashToken, newToken, safeEqual } from "../core/tokens.js";
import { endLinks, issueLink, useLink } from "../core/links.js";
import { RETENTION } from "../core/jobs/retention.js";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { layoutMail } from "../core/mail/layout.js";
import { isPublic, publicReport } from "../core/visibility.js";
import { readRowToken, rowToken } from "./unsubscribe.js";

/**
 * "Get updates by email": people follow a report with a double opt-in (a link in a mail opens a page whose button
 * confirms, so mail scanners that follow links confirm nothing), and every update mail, to followers and to the
 * reporter, carries a one-click unsubscribe (RFC 8058). Unsubscribe tokens are keyed hashes, so nothing but the
 * server secret and the row itself is needed to check one: `f<follower id>.<mac>` or `r<report id>.<mac>`.
 */
const PURPOSE = "report-updates-unsubscribe";

function followerToken(secret: string, id: number, tokenHash: string): string {
  return rowToken(secret, PURPOSE, "f", id, tokenHash);
}

function reporterToken(secret: string, reportId: number, email: string): string {
  return rowToken(secret, PURPOSE, "r", reportId, email);
}

function unsubscribeUrl(civic: Civic, token: string): string {
  return `${civic.site.baseUrl}/reports/updates/unsubscribe/${token}`;
}

/** Who gets a report's update mails: the reporter (unless they stopped them) and its confirmed followers. */
export interface UpdateRecipient {
  to: string;
  unsubscribeUrl: string;
}

/** The recipients of a report's update mails, each address once (the reporter first). */
export async function updateRecipients(civic: Civic, db: Kysely<DB>, reportId: number): Promise<UpdateRecipient[]> {
  const secret = civic.config.sessionSecret;
  const [report, followers] = await Promise.all([
    db
      .selectFrom("reports")
      .select(["reporter_email", "updates_stopped_at", "visibility"])
      .where("id", "=", reportId)
      .executeTakeFirst(),
    db
      .selectFrom("report_followers")
      .select(["id", "email", "token_hash"])
      .where("report_id", "=", reportId)
      .where("confirmed_at", "is not", null)
      .orderBy("id")
      .execute(),
  ]);
  const out: UpdateRecipient[] = [];
  const seen = new Set<string>();
  if (report?.reporter_email && report.updates_stopped_at === null) {
    seen.add(report.reporter_email.toLowerCase());
    out.push({
      to: report.reporter_email,
      unsubscribeUrl: unsubscribeUrl(civic, reporterToken(secret, reportId, report.reporter_email)),
    });
  }
  // While moderation keeps the report from the public (its page is 410 Gone), only its reporter hears of it.
  if (!isPublic(report?.visibility)) return out;
  for (const f of followers) {
    if (seen.has(f.email)) continue;
    seen.add(f.email);
    out.push({ to: f.email, unsubscribeUrl: unsubscribeUrl(civic, followerToken(secret, f.id, f.token_hash)) });
  }
  return out;
}

/**
 * Starts following a public report (or restarts an unconfirmed request) and mails the confirmation link. An address
 * that already follows gets nothing new, and the caller answers the same either way. Returns false when the report
 * is not public (nothing is stored).
 */
export async function requestFollow(
  civic: Civic,
  reference: string,
  email: string,
  /** Records the form's single use first, in the same transaction (a replay throws a unique violation). */
  recordSubmission?: RecordSubmission,
): Promise<boolean> {
  const now = civic.now();
  const at = now.toISOString();
  // The row's token_hash is the salt of its unsubscribe token (followerToken); the confirmation link is an emailed
  // link of its own (core/links.ts), single-use.
  const salt = hashToken(newToken());
  return civic.database.db.transaction().execute(async (tx) => {
    if (recordSubmission) await recordSubmission(tx, reference);
    const report = await tx
      .selectFrom("reports")
      .select(["id", "reference"])
      .where("reference", "=", reference)
      .where(publicReport)
      .executeTakeFirst();
    if (!report) return false;
    const existing = await tx
      .selectFrom("report_followers")
      .select(["id", "confirmed_at"])
      .where("report_id", "=", report.id)
      .where("email", "=", email)
      .executeTakeFirst();
    if (existing?.confirmed_at) return true;
    let id: number;
    if (existing) {
      id = existing.id;
      await tx
        .updateTable("report_followers")
        .set({ token_hash: salt, created_at: at })
        .where("id", "=", existing.id)
        .execute();
      // A new confirmation link replaces the one sent before.
      await endLinks(tx, { purpose: CONFIRM, ref: id }, now);
    } else {
      const row = await tx
        .insertInto("report_followers")
        .values({ report_id: report.id, email, token_hash: salt, created_at: at, confirmed_at: null })
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
    const village = civic.site.villageName;
    const link = `${civic.site.baseUrl}/reports/updates/confirm/${token}`;
    await sendUnconfirmedMail(
      tx,
      { secret: civic.config.sessionSecret, now },
      layoutMail(
        civic.site,
        { kind: "report-follow-confirm", to: email, subject: `Confirm updates on report ${report.reference}` },
        {
          heading: `Confirm updates on report ${report.reference}`,
          body: [
            `Someone (we hope you) asked to get the updates on report ${report.reference} of the ${village} Community Platform by email.`,
          ],
          action: {
            lead: "To confirm, open this link and press the button on the page:",
            label: "Confirm the updates",
            url: link,
          },
          after: ["If it was not you, ignore this message: nothing more will be sent."],
          footer: {
            why: "You get this message because this address was typed into a report's updates form on our site.",
          },
        },
      ),
    );
    return true;
  });
}

/** The purpose of a follow's confirmation link (core/links.ts). */
export const FOLLOW_CONFIRM = "report-follow";
const CONFIRM = FOLLOW_CONFIRM;

/** The reference of the report an unconfirmed follow's follower row is for, or undefined. */
export async function unconfirmedFollow(db: Kysely<DB>, ref: string | null): Promise<string | undefined> {
  if (ref === null) return undefined;
  const row = await db
    .selectFrom("report_followers")
    .innerJoin("reports", "reports.id", "report_followers.report_id")
    .select("reports.reference")
    .where("report_followers.id", "=", Number(ref))
    .where("report_followers.confirmed_at", "is", null)
    .executeTakeFirst();
  return row?.reference;
}

/** Confirms a follow request by its link token (used once); the reference of the report, or undefined. */
export async function confirmFollow(civic: Civic, token: string): Promise<string | undefined> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const link = await useLink(tx, CONFIRM, token, now);
    const reference = link ? await unconfirmedFollow(tx, link.ref) : undefined;
    if (!link || !reference) return undefined;
    await tx
      .updateTable("report_followers")
      .set({ confirmed_at: now.toISOString() })
      .where("id", "=", Number(link.ref))
      .where("confirmed_at", "is", null)
      .execute();
    return reference;
  });
}

/** What an unsubscribe token names: a follower row or a report's reporter. */
export type UnsubscribeTarget =
  | { kind: "follower"; id: number; reference: string }
  | { kind: "reporter"; reportId: number; reference: string; stopped: boolean };

/** The target of an unsubscribe token, or undefined (malformed, forged, or the follower already stopped). */
export async function unsubscribeTarget(civic: Civic, token: string): Promise<UnsubscribeTarget | undefined> {
  const claimed = readRowToken(token, "fr");
  if (!claimed) return undefined;
  const { id } = claimed;
  const db = civic.database.db;
  const secret = civic.config.sessionSecret;
  if (claimed.prefix === "f") {
    const row = await db
      .selectFrom("report_followers")
      .innerJoin("reports", "reports.id", "report_followers.report_id")
      .select(["report_followers.id", "report_followers.token_hash", "reports.reference"])
      .where("report_followers.id", "=", id)
      .executeTakeFirst();
    if (!row || !safeEqual(followerToken(secret, row.id, row.token_hash), token)) return undefined;
    return { kind: "follower", id: row.id, reference: row.reference };
  }
  const row = await db
    .selectFrom("reports")
    .select(["id", "reference", "reporter_email", "updates_stopped_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row?.reporter_email || !safeEqual(reporterToken(secret, row.id, row.reporter_email), token)) return undefined;
  return { kind: "reporter", reportId: row.id, reference: row.reference, stopped: row.updates_stopped_at !== null };
}

/** Stops the update mails a token names (idempotent): a follower's row is deleted, a reporter's mails are stopped. */
export async function stopUpdates(civic: Civic, target: UnsubscribeTarget): Promise<void> {
  const db = civic.database.db;
  if (target.kind === "follower") {
    await db.deleteFrom("report_followers").where("id", "=", target.id).execute();
    return;
  }
  await db
    .updateTable("reports")
    .set({ updates_stopped_at: civic.now().toISOString() })
    .where("id", "=", target.reportId)
    .where("updates_stopped_at", "is", null)
    .execute();
}
