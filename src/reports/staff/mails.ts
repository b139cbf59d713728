import type { Civic } from "../../core/context.js";
import { layoutMail } from "../../core/mail/layout.js";
import type { OutgoingMail } from "../../core/mail/outbox.js";
import { oneClickHeaders } from "../unsubscribe.js";

export interface StatusUpdate {
  reference: string;
  statusLabel: string;
  note: string;
  /** Who wrote an update from outside the council ("a resident", "the reporter"); said in the mail. */
  from?: string;
}

/**
 * The mail sent at a public update or status change, to the reporter and to each follower (queued by events.ts). The subject has only the reference
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
        u.from
          ? `There is an update from ${u.from} on report ${u.reference}.`
          : `There is an update on report ${u.reference}.`,
        { facts: [{ label: u.from ? "Status" : "New status", value: u.statusLabel }] },
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
