import type { OutgoingMail } from "../core/mail/outbox.js";
import type { SiteInfo } from "../core/site.js";

/** Moderation messages. Subjects carry only our words and a reference, never text anyone typed. */
function signature(site: SiteInfo): string {
  return `\n\n-- \n${site.villageName} Community Platform\n${site.baseUrl}/\nRun by volunteers. Questions: ${site.contactEmail}`;
}

const DONE: Record<string, string> = {
  hide: "hidden from public view",
  remove: "removed from public view",
  redact: "edited by the moderators",
  "auto-hide": "hidden until a moderator reviews it, because several people reported it",
};

/** Tells an author what happened to their contribution and why. */
export function decisionMail(
  site: SiteInfo,
  to: string,
  d: { action: string; subjectRef: string; reason: string; publicUrl: string },
): OutgoingMail | null {
  const what = DONE[d.action];
  if (!what) return null;
  return {
    kind: "moderation-decision",
    to,
    subject: `Your ${d.subjectRef} on ${site.villageName} Community Platform was moderated`,
    text:
      `Your ${d.subjectRef} (${d.publicUrl}) has been ${what}.\n\nThe moderators' reason:\n${d.reason}\n\n` +
      `If you think this is a mistake, reply to ${site.contactEmail} with the reference and we will look at it again.` +
      signature(site),
    html: null,
    domain: new URL(site.baseUrl).hostname,
  };
}

export function suspensionMail(site: SiteInfo, to: string, reason: string): OutgoingMail {
  return {
    kind: "moderation-suspension",
    to,
    subject: `Your account on ${site.villageName} Community Platform has been suspended`,
    text:
      `Your account on the ${site.villageName} Community Platform has been suspended, so you cannot sign in or post ` +
      `with it.\n\nThe reason:\n${reason}\n\nTo appeal, write to ${site.contactEmail} and say why the decision ` +
      `should be reviewed; a different moderator will look at it.${signature(site)}`,
    html: null,
    domain: new URL(site.baseUrl).hostname,
  };
}

export function unsuspensionMail(site: SiteInfo, to: string): OutgoingMail {
  return {
    kind: "moderation-unsuspension",
    to,
    subject: `Your account on ${site.villageName} Community Platform is active again`,
    text: `Your account on the ${site.villageName} Community Platform is no longer suspended; you can sign in again.${signature(site)}`,
    html: null,
    domain: new URL(site.baseUrl).hostname,
  };
}
