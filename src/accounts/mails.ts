import type { SiteInfo } from "../core/site.js";
import type { OutgoingMail } from "../core/mail/outbox.js";

/**
 * The accounts feature's messages. Subjects never carry anything a person typed (an address, a name): only our own
 * words and the village's name from the configuration.
 */
const MINUTES = 30;

function signature(site: SiteInfo): string {
  return `\n\n-- \n${site.villageName} Community Platform\n${site.baseUrl}/\nRun by volunteers. Questions: ${site.contactEmail}`;
}

function domainOf(site: SiteInfo): string {
  return new URL(site.baseUrl).hostname;
}

export function signInMail(site: SiteInfo, to: string, link: string, code: string): OutgoingMail {
  return {
    kind: "account-sign-in",
    to,
    subject: `Your sign-in link for ${site.villageName} Community Platform`,
    text:
      `Someone (we hope you) asked to sign in to the ${site.villageName} Community Platform with this address.\n\n` +
      `Open this link and press "Sign in":\n${link}\n\nOr type this code on the sign-in page: ${code}\n\n` +
      `The link and the code work once, for ${MINUTES} minutes. If you did not ask for this, ignore this message: ` +
      `nobody can sign in without it.${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
}

export function emailChangeMail(site: SiteInfo, to: string, link: string): OutgoingMail {
  return {
    kind: "account-email-change",
    to,
    subject: `Confirm your new email address for ${site.villageName} Community Platform`,
    text:
      `Someone (we hope you) asked to use this address for their account on the ${site.villageName} Community ` +
      `Platform.\n\nOpen this link and press "Use this address" to confirm:\n${link}\n\nThe link works once, for ` +
      `${MINUTES} minutes. Until then the old address stays in use. If you did not ask for this, ignore this ` +
      `message.${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
}

export function addAddressMail(site: SiteInfo, to: string, accountEmail: string, link: string): OutgoingMail {
  return {
    kind: "account-add-address",
    to,
    subject: `Add this address to an account on ${site.villageName} Community Platform?`,
    text:
      `${accountEmail} asked to add this address to their account on the ${site.villageName} Community ` +
      `Platform. If this wasn't you, ignore this message.\n\nIf it was you, open this link and press "Add this ` +
      `address":\n${link}\n\nThe account's data download and erasure then include what is held under this ` +
      `address. The link works once, for ${MINUTES} minutes.${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
}

export function myDataMail(site: SiteInfo, to: string, link: string): OutgoingMail {
  return {
    kind: "my-data",
    to,
    subject: `Your personal data on the ${site.villageName} Community Platform`,
    text:
      `Someone (we hope you) asked to see what the ${site.villageName} Community Platform holds about this ` +
      `address.\n\nOpen this link to download it or to have it erased:\n${link}\n\nThe link works for ${MINUTES} ` +
      `minutes. If you did not ask for this, ignore this message: nobody else can open your data.${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
}

/** How long the undo link sent to the old address after an email change works. */
export const UNDO_DAYS = 7;

/** To the old address, once an account's address has changed: what happened and the link that undoes it. */
export function emailChangedMail(site: SiteInfo, oldEmail: string, undoLink: string): OutgoingMail {
  return {
    kind: "account-email-changed",
    to: oldEmail,
    subject: `The email address of your ${site.villageName} Community Platform account was changed`,
    text:
      `The account on the ${site.villageName} Community Platform that used this address now uses another one, ` +
      `and its other devices were signed out.\n\nIf you did this, there is nothing to do.\n\nIf you did not, open ` +
      `this link and press "Put my address back": it gives the account this address again and signs out every ` +
      `device, whoever uses it.\n${undoLink}\n\nThe link works once, for ${UNDO_DAYS} days, and does not need you ` +
      `to be signed in.${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
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
  return {
    kind: "account-security-change",
    to,
    subject: `A change to how you sign in to the ${site.villageName} Community Platform`,
    text:
      `On your account on the ${site.villageName} Community Platform, ${CHANGE_WORDS[change]}, and every other ` +
      `device was signed out.\n\nIf you did this, there is nothing to do.\n\nIf you did not, sign in with a link ` +
      `by email at ${site.baseUrl}/sign-in, then on your account page remove any password or passkey you do not ` +
      `know and press "Sign out everywhere". Questions: ${site.contactEmail}${signature(site)}`,
    html: null,
    domain: domainOf(site),
  };
}
