import type { SiteInfo } from "../core/site.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import { layoutMail } from "../core/mail/layout.js";

/**
 * The accounts feature's messages. Subjects never carry anything a person typed (an address, a name): only our own
 * words and the village's name from the configuration.
 */
const MINUTES = 30;

/** Why a message that proves control of an address came, whoever asked for it. */
const ASKED = "You get this message because someone asked for it with this address on our site.";

export function signInMail(site: SiteInfo, to: string, link: string, code: string): OutgoingMail {
  return layoutMail(
    site,
    { kind: "account-sign-in", to, subject: `Your sign-in link for ${site.villageName} Community Platform` },
    {
      heading: "Your sign-in link",
      body: [`Someone (we hope you) asked to sign in to the ${site.villageName} Community Platform with this address.`],
      action: { lead: `Open this link and press "Sign in":`, label: "Sign in", url: link },
      after: [
        `Or type this code on the sign-in page: ${code}`,
        `The link and the code work once, for ${MINUTES} minutes. If you did not ask for this, ignore this message: ` +
          `nobody can sign in without it.`,
      ],
      footer: { why: ASKED },
    },
  );
}

export function emailChangeMail(site: SiteInfo, to: string, link: string): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "account-email-change",
      to,
      subject: `Confirm your new email address for ${site.villageName} Community Platform`,
    },
    {
      heading: "Confirm your new email address",
      body: [
        `Someone (we hope you) asked to use this address for their account on the ${site.villageName} Community ` +
          `Platform.`,
      ],
      action: {
        lead: `Open this link and press "Use this address" to confirm:`,
        label: "Use this address",
        url: link,
      },
      after: [
        `The link works once, for ${MINUTES} minutes. Until then the old address stays in use. If you did not ask ` +
          `for this, ignore this message.`,
      ],
      footer: { why: ASKED },
    },
  );
}

export function addAddressMail(site: SiteInfo, to: string, accountEmail: string, link: string): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "account-add-address",
      to,
      subject: `Add this address to an account on ${site.villageName} Community Platform?`,
    },
    {
      heading: "Add this address to an account?",
      body: [
        `${accountEmail} asked to add this address to their account on the ${site.villageName} Community ` +
          `Platform. If this wasn't you, ignore this message.`,
      ],
      action: {
        lead: `If it was you, open this link and press "Add this address":`,
        label: "Add this address",
        url: link,
      },
      after: [
        `The account's data download and erasure then include what is held under this address. The link works ` +
          `once, for ${MINUTES} minutes.`,
      ],
      footer: { why: ASKED },
    },
  );
}

export function myDataMail(site: SiteInfo, to: string, link: string): OutgoingMail {
  return layoutMail(
    site,
    { kind: "my-data", to, subject: `Your personal data on the ${site.villageName} Community Platform` },
    {
      heading: "Your personal data",
      body: [
        `Someone (we hope you) asked to see what the ${site.villageName} Community Platform holds about this ` +
          `address.`,
      ],
      action: { lead: "Open this link to download it or to have it erased:", label: "See your data", url: link },
      after: [
        `The link works for ${MINUTES} minutes. If you did not ask for this, ignore this message: nobody else can ` +
          `open your data.`,
      ],
      footer: { why: ASKED },
    },
  );
}

/** How long the undo link sent to the old address after an email change works. */
export const UNDO_DAYS = 7;

/** Why the messages about a change to an account come: they cannot be turned off while the account exists. */
const ACCOUNT = "You get this message because it is about your account. Messages like it cannot be turned off.";

/** To the old address, once an account's address has changed: what happened and the link that undoes it. */
export function emailChangedMail(site: SiteInfo, oldEmail: string, undoLink: string): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "account-email-changed",
      to: oldEmail,
      subject: `The email address of your ${site.villageName} Community Platform account was changed`,
    },
    {
      heading: "Your account's email address was changed",
      body: [
        `The account on the ${site.villageName} Community Platform that used this address now uses another one, ` +
          `and its other devices were signed out.`,
        "If you did this, there is nothing to do.",
      ],
      action: {
        lead:
          `If you did not, open this link and press "Put my address back": it gives the account this address ` +
          `again and signs out every device, whoever uses it.`,
        label: "Put my address back",
        url: undoLink,
      },
      after: [`The link works once, for ${UNDO_DAYS} days, and does not need you to be signed in.`],
      footer: { why: ACCOUNT },
    },
  );
}

export type SecurityChange = "password-set" | "password-removed" | "passkey-added" | "passkey-removed";

const CHANGE_WORDS: Record<SecurityChange, string> = {
  "password-set": "a new password was set",
  "password-removed": "the password was removed",
  "passkey-added": "a passkey was added",
  "passkey-removed": "a passkey was removed",
};

/** To the account's address after a change of how it signs in. */
export function securityChangeMail(site: SiteInfo, to: string, change: SecurityChange): OutgoingMail {
  return layoutMail(
    site,
    {
      kind: "account-security-change",
      to,
      subject: `A change to how you sign in to the ${site.villageName} Community Platform`,
    },
    {
      heading: "A change to how you sign in",
      body: [
        `On your account on the ${site.villageName} Community Platform, ${CHANGE_WORDS[change]}, and every other ` +
          `device was signed out.`,
        "If you did this, there is nothing to do.",
      ],
      action: {
        lead:
          `If you did not, sign in with a link by email, then on your account page remove any password or passkey ` +
          `you do not know and press "Sign out everywhere".`,
        label: "Sign in",
        url: `${site.baseUrl}/sign-in`,
      },
      footer: { why: ACCOUNT },
    },
  );
}
