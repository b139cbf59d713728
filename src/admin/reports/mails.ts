import type { Civic } from "../../core/context.js";
import type { OutgoingMail } from "../../core/mail/outbox.js";
import { escapeHtml } from "../../reports/emails.js";

/**
 * The mail sent at a public status change. The subject has only the reference (never text anyone typed); the body
 * has the update text and a link to the report's public page.
 */
export function statusUpdateMail(
  civic: Civic,
  to: string,
  u: { reference: string; statusLabel: string; note: string },
): OutgoingMail {
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
  ].join("\n");
  const html = `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Update on report ${escapeHtml(u.reference)}</title></head><body><p>There is an update on report ${escapeHtml(u.reference)}.</p><p><strong>New status:</strong> ${escapeHtml(u.statusLabel)}</p><p>${escapeHtml(u.note).replace(/\n/g, "<br>")}</p><p><a href="${escapeHtml(link)}">See the report and its history</a></p><p>— The ${escapeHtml(village)} Community Platform volunteers</p></body></html>`;
  return {
    kind: "report-status",
    to,
    subject: `Update on report ${u.reference}`,
    text,
    html,
    domain: new URL(civic.site.baseUrl).hostname,
  };
}
