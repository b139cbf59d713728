import type { Kysely } from "kysely";
import type { Civic } from "../../core/context.js";
import type { DB } from "../../core/db/schema.js";
import { enqueueMail, type OutgoingMail } from "../../core/mail/outbox.js";
import { escapeHtml } from "../emails.js";
import { updateRecipients } from "../followers.js";

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
  const village = civic.site.villageName;
  const text = [
    `There is an update on report ${u.reference}.`,
    "",
    `New status: ${u.statusLabel}`,
    "",
    u.note,
    "",
    `See the report and its history: ${link}`,
    "",
    `— The ${village} Community Platform volunteers`,
    "",
    `Stop the updates on this report: ${unsubscribe}`,
  ].join("\n");
  const html = `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Update on report ${escapeHtml(u.reference)}</title></head><body><p>There is an update on report ${escapeHtml(u.reference)}.</p><p><strong>New status:</strong> ${escapeHtml(u.statusLabel)}</p><p>${escapeHtml(u.note).replace(/\n/g, "<br>")}</p><p><a href="${escapeHtml(link)}">See the report and its history</a></p><p>— The ${escapeHtml(village)} Community Platform volunteers</p><p><a href="${escapeHtml(unsubscribe)}">Stop the updates on this report</a></p></body></html>`;
  return {
    kind: "report-status",
    to,
    subject: `Update on report ${u.reference}`,
    text,
    html,
    headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    domain: new URL(civic.site.baseUrl).hostname,
  };
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
