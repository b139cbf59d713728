import { layoutMail } from "../core/mail/layout.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import type { SiteInfo } from "../core/site.js";

/** Moderation messages. Subjects carry only our words and a reference, never text anyone typed. */
const DONE: Record<string, string> = {
  hide: "hidden from public view",
  remove: "removed from public view",
  redact: "edited by the moderators",
  "auto-hide": "hidden until a moderator reviews it, because several people reported it",
};

const WHY = "You get this message because it is about what you posted or your account. It cannot be turned off.";

/** Tells an author what happened to their contribution and why. */
export function decisionMail(
  site: SiteInfo,
  to: string,
  d: { action: string; subjectRef: string; reason: string; publicUrl: string },
): OutgoingMail | null {
  const what = DONE[d.action];
  if (!what) return null;
  return layoutMail(
    site,
    {
      kind: "moderation-decision",
      to,
      subject: `Your ${d.subjectRef} on ${site.villageName} Community Platform was moderated`,
    },
    {
      heading: `Your ${d.subjectRef} was moderated`,
      body: [
        `Your ${d.subjectRef} (${d.publicUrl}) has been ${what}.`,
        "The moderators' reason:",
        { quote: d.reason },
        `If you think this is a mistake, reply to ${site.contactEmail} with the reference and we will look at it again.`,
      ],
      footer: { why: WHY },
    },
  );
}

export function suspensionMail(site: SiteInfo, to: string, reason: string): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "moderation-suspension",
      to,
      subject: `Your account on ${site.villageName} Community Platform has been suspended`,
    },
    {
      heading: "Your account has been suspended",
      body: [
        `Your account on the ${site.villageName} Community Platform has been suspended, so you cannot sign in or ` +
          `post with it.`,
        "The reason:",
        { quote: reason },
        `To appeal, write to ${site.contactEmail} and say why the decision should be reviewed; a different ` +
          `moderator will look at it.`,
      ],
      footer: { why: WHY },
    },
  );
}

export function unsuspensionMail(site: SiteInfo, to: string): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "moderation-unsuspension",
      to,
      subject: `Your account on ${site.villageName} Community Platform is active again`,
    },
    {
      heading: "Your account is active again",
      body: [
        `Your account on the ${site.villageName} Community Platform is no longer suspended; you can sign in again.`,
      ],
      action: { label: "Sign in", url: `${site.baseUrl}/sign-in` },
      footer: { why: WHY },
    },
  );
}
