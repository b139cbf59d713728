import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { clientKey } from "../core/http/client-address.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import { RETENTION } from "../core/jobs/retention.js";
import { issueLink, openLink, useLink } from "../core/links.js";
import { layoutMail } from "../core/mail/layout.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { publicReport } from "../core/visibility.js";
import { recordReportEvent } from "./events.js";

/**
 * "I have seen this too" (issue 36): one mark per person and report, a public count, never a public list of who.
 * A person is a signed-in account; an address confirmed by an emailed link (core/links.ts: the link opens a page
 * whose button confirms); or, for an anonymous visitor, the client address of the day, kept only as a keyed hash
 * of the report, the day and the client (core/http/client-address.ts), like the moderation flagger's key. Each mark
 * is a row of `report_seen` (migration 0037: the count, and "once per person" by its unique index) and an internal
 * event of the report through the one path (events.ts, kind "seen": in the report's record, never in its public
 * history, no mail). Only public reports can be marked.
 */

/** The purpose of the confirmation link of a mark given with an email address (core/links.ts). */
export const SEEN_CONFIRM = "report-seen";

/** Who marks, as stored: the account and address are kept for the person's data only, never shown. */
export interface Seer {
  seer: string;
  accountId: string | null;
  email: string | null;
}

function keyed(civic: Civic, text: string): string {
  return createHmac("sha256", civic.config.sessionSecret).update(text).digest("base64url");
}

/** A signed-in person. */
export function accountSeer(accountId: string): Seer {
  return { seer: `account:${accountId}`, accountId, email: null };
}

/** A person by an address they confirmed (a keyed hash names them: the address is not in the unique key). */
export function emailSeer(civic: Civic, email: string): Seer {
  return { seer: `email:${keyed(civic, `seen-email:${email}`)}`, accountId: null, email };
}

/** An anonymous visitor: a keyed hash of the report, the UTC day and the client (never the address itself). */
export function clientSeer(civic: Civic, reportId: number, clientIp: string, now: Date): Seer {
  const day = now.toISOString().slice(0, 10);
  return {
    seer: `client:${keyed(civic, `seen:${reportId}:${day}:${clientKey(clientIp)}`)}`,
    accountId: null,
    email: null,
  };
}

/**
 * Marks a public report as seen by one person, in one transaction with its event (and the form's single use, when
 * given). Returns false when this person had marked it already (nothing is written). Throws `not_found` when the
 * report is not public.
 */
export async function markSeen(
  civic: Civic,
  reportId: number,
  who: Seer,
  recordSubmission?: RecordSubmission,
): Promise<boolean> {
  return civic.database.db.transaction().execute(async (tx) => {
    if (recordSubmission) await recordSubmission(tx, String(reportId));
    return markIn(tx, civic, reportId, who);
  });
}

/** The mark's row and its event, in the caller's transaction. */
async function markIn(tx: Kysely<DB>, civic: Civic, reportId: number, who: Seer): Promise<boolean> {
  const now = civic.now();
  const inserted = await tx
    .insertInto("report_seen")
    .values({
      report_id: reportId,
      seer: who.seer,
      account_id: who.accountId,
      email: who.email,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(["report_id", "seer"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return false;
  // The one path: refuses a report the public cannot see (not_found), which rolls the mark back.
  await recordReportEvent(
    tx,
    {
      civic,
      now,
      by: "resident",
      accountId: who.accountId,
      email: who.email,
      key: `seen:${reportId}:${keyed(civic, who.seer)}`,
    },
    reportId,
    { kind: "seen" },
  );
  return true;
}

/** How many people have said they have seen a report too. */
export async function seenCount(db: Kysely<DB>, reportId: number): Promise<number> {
  const row = await db
    .selectFrom("report_seen")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where("report_id", "=", reportId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many people have said they have seen a report (by reference) too. */
export async function seenCountOf(db: Kysely<DB>, reference: string): Promise<number> {
  const row = await db
    .selectFrom("report_seen")
    .innerJoin("reports", "reports.id", "report_seen.report_id")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where("reports.reference", "=", reference)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The "seen too" counts of several reports, by reference (absent: none); for feeds. */
export async function seenCountsOf(db: Kysely<DB>, references: string[]): Promise<Map<string, number>> {
  if (references.length === 0) return new Map();
  const rows = await db
    .selectFrom("report_seen")
    .innerJoin("reports", "reports.id", "report_seen.report_id")
    .select(["reports.reference", (eb) => eb.fn.countAll<string | number>().as("n")])
    .where("reports.reference", "in", references.slice(0, 1000))
    .groupBy("reports.reference")
    .execute();
  return new Map(rows.map((r) => [r.reference, Number(r.n)]));
}

/** Whether this person has marked the report already (for the page to say so). */
export async function hasSeen(db: Kysely<DB>, reportId: number, who: Seer): Promise<boolean> {
  const row = await db
    .selectFrom("report_seen")
    .select("id")
    .where("report_id", "=", reportId)
    .where("seer", "=", who.seer)
    .executeTakeFirst();
  return row !== undefined;
}

/** The "seen too" counts of several reports, by report id (absent: none). */
export async function seenCounts(db: Kysely<DB>, reportIds: number[]): Promise<Map<number, number>> {
  if (reportIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("report_seen")
    .select(["report_id", (eb) => eb.fn.countAll<string | number>().as("n")])
    .where("report_id", "in", reportIds.slice(0, 1000))
    .groupBy("report_id")
    .execute();
  return new Map(rows.map((r) => [r.report_id, Number(r.n)]));
}

/**
 * Mails a link to confirm a mark given with an address (single use; the caller answers the same whether or not a
 * mail was sent). Nothing is sent when the address marked this report already.
 */
export async function requestSeenByEmail(
  civic: Civic,
  report: { id: number; reference: string },
  email: string,
  recordSubmission?: RecordSubmission,
): Promise<void> {
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    if (recordSubmission) await recordSubmission(tx, report.reference);
    if (await hasSeen(tx, report.id, emailSeer(civic, email))) return;
    const token = await issueLink(
      tx,
      {
        purpose: SEEN_CONFIRM,
        email,
        ref: report.id,
        expiresAt: new Date(now.getTime() + RETENTION.unconfirmedDays * 24 * 60 * 60_000),
        maxUses: 1,
      },
      now,
    );
    const link = `${civic.site.baseUrl}/reports/seen/confirm/${token}`;
    await sendUnconfirmedMail(
      tx,
      { secret: civic.config.sessionSecret, now },
      layoutMail(
        civic.site,
        { kind: "report-seen-confirm", to: email, subject: `Confirm: you have seen report ${report.reference} too` },
        {
          heading: `Have you seen report ${report.reference} too?`,
          body: [
            `Someone (we hope you) said on the ${civic.site.villageName} Community Platform that they have seen the problem of report ${report.reference} too.`,
            "Confirming adds one to the count shown on the report. Your address is never shown.",
          ],
          action: { lead: "To confirm, open this link and press the button on the page:", label: "Confirm", url: link },
          after: ["If it was not you, ignore this message: nothing more will be sent."],
          footer: {
            why: "You get this message because this address was typed into a report's “I have seen this too” form on our site.",
          },
        },
      ),
    );
  });
}

/** The public report a live confirmation link is for, or undefined (for the page the link opens). */
export async function seenLinkReport(db: Kysely<DB>, ref: string | null) {
  if (ref === null || !/^\d{1,12}$/.test(ref)) return undefined;
  return db
    .selectFrom("reports")
    .select(["id", "reference", "title"])
    .where("id", "=", Number(ref))
    .where(publicReport)
    .executeTakeFirst();
}

/**
 * Confirms a mark by its link (used once): the reference of the report, or undefined when the link is not valid or
 * its report is no longer public (then the link is left unused).
 */
export async function confirmSeen(civic: Civic, token: string): Promise<string | undefined> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const open = await openLink(tx, SEEN_CONFIRM, token, now);
    const report = open ? await seenLinkReport(tx, open.ref) : undefined;
    if (!report) return undefined;
    const link = await useLink(tx, SEEN_CONFIRM, token, now);
    if (!link) return undefined;
    await markIn(tx, civic, report.id, emailSeer(civic, link.email));
    return report.reference;
  });
}
