import { createHmac } from "node:crypto";

/** The owner of what is saved on a device while nobody is signed in. */
export const ANONYMOUS_OWNER = "anonymous";

/**
 * Who is using the site on this device, as the device may know it: an opaque key for an account (a keyed hash of
 * its id, never the id or the address), or `anonymous`. Every page carries it (`<meta name="device-owner">`), and the
 * offline drafts are tagged with it (src/client/_drafts.ts): a draft is shown and sent only while the same owner is
 * using the site, and POST /api/app/reports refuses a draft whose owner is not the session's. Stable for an account,
 * so a person whose session expired finds their drafts again when they sign in.
 */
export function deviceOwnerKey(secret: string, accountId: string | null): string {
  if (accountId === null) return ANONYMOUS_OWNER;
  return `a.${createHmac("sha256", secret).update(`device-owner\0${accountId}`).digest("base64url").slice(0, 22)}`;
}
