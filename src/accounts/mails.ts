import type { SiteInfo } from "../site/content/types.js";
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
