import type { Kysely } from "kysely";
import type { Civic } from "../../core/context.js";
import type { DB } from "../../core/db/schema.js";
import { layoutMail } from "../../core/mail/layout.js";
import { enqueueMail, type OutgoingMail } from "../../core/mail/outbox.js";
import { updateRecipients } from "../followers.js";
import { oneClickHeaders } from "../unsubscribe.js";

export interface StatusUpdate {
  reference: string;
  statusLabel: string;
  note: string;
}

/**
 * The mail sent at a public status change, to the reporter and to each follower. The subject has only the reference
 * (never text anyone typed); the body has the update text and a link to the report's public page; the headers and
 * the footer carry the recipient's one-click unsubscribe (RFC 8058).
 */
export function statusUpdateMail(civic: Civic, to: string, u: StatusUpdate, unsubscribe: string): OutgoingMail {
  const link = `${civic.site.baseUrl}/reports/${u.reference}`;
  return layoutMail(
    civic.site,
    {
      kind: "report-status",
      to,
      subject: `Update on report ${u.reference}`,
      headers: oneClickHeaders(unsubscribe),
    },
    {
      heading: `Update on report ${u.reference}`,
      body: [
        `There is an update on report ${u.reference}.`,
        { facts: [{ label: "New status", value: u.statusLabel }] },
        ...(u.note.trim() ? [{ quote: u.note }] : []),
      ],
      action: { label: "See the report and its history", url: link },
      after: [`— The ${civic.site.villageName} Community Platform volunteers`],
      footer: {
        why: "You get this message because you reported this or asked for its updates.",
        stop: { label: "Stop the updates on this report", url: unsubscribe },
      },
    },
  );
}

/** Queues the update mail to everyone who gets a report's updates (in the caller's transaction). */
export async function enqueueUpdateMails(
  civic: Civic,
  tx: Kysely<DB>,
  reportId: number,
  u: StatusUpdate,
  now: Date,
): Promise<void> {
  for (const r of await updateRecipients(civic, tx, reportId)) {
    await enqueueMail(tx, statusUpdateMail(civic, r.to, u, r.unsubscribeUrl), now);
  }
}
