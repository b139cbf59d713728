/**
 * Email addresses, normalised once for everything that compares them: the forms that take an address to prove or
 * to mail (`normaliseEmail`), and the ban list, mail caps and suppressions that must see one mailbox however it is
 * spelt (`mailboxKey`). What is stored and mailed is the normalised address as typed (with its `+tag`); only the
 * comparisons use the mailbox key.
 */

// Control characters (Unicode Cc) and invisible format characters (Cf: zero-width space, joiners, word joiner,
// byte-order mark, soft hyphen, bidi controls…): an address with one looks like another address but is not.
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}]/gu;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/**
 * Normalises a typed email address, or null when it is not one: trimmed, lower case, and one trailing dot of the
 * domain dropped (`ann@example.org.` reaches the same mailbox as `ann@example.org`). Control and invisible
 * characters are refused rather than removed, so the form tells the person instead of silently changing what they
 * typed.
 */
export function normaliseEmail(value: string): string | null {
  const trimmed = value.trim().toLowerCase();
  if (INVISIBLE.test(trimmed)) return null;
  const v = trimmed.endsWith(".") ? trimmed.slice(0, -1) : trimmed;
  if (v.length === 0 || v.length > 254 || !EMAIL.test(v)) return null;
  const domain = v.slice(v.lastIndexOf("@") + 1);
  if (domain.split(".").includes("")) return null;
  return v;
}

/** An address without the `+tag` of its local part ("troll+x@example.net" and "troll@example.net" reach one inbox). */
export function untagged(address: string): string {
  const at = address.lastIndexOf("@");
  const plus = address.indexOf("+");
  return plus > 0 && plus < at ? address.slice(0, plus) + address.slice(at) : address;
}

/**
 * The address as compared (for the ban list and where tags matter): lower case, without invisible characters and
 * without trailing dots of the domain. Total: any string gives a key, so an address stored before the rules were
 * this strict still compares as the mailbox it reaches.
 */
export function comparableAddress(address: string): string {
  return address.replace(INVISIBLE_ALL, "").trim().toLowerCase().replace(/\.+$/, "");
}

/**
 * The mailbox an address reaches, for the ban list, mail caps and suppressions: `comparableAddress` without the
 * `+tag` of its local part (`Ann+x@Example.org.` and `ann@example.org` are one inbox almost everywhere). For
 * gmail.com and googlemail.com, dots in the local part are also dropped (Gmail ignores them, so `a.n.n@gmail.com`
 * is `ann@gmail.com`); other providers may treat dots as significant, so they are kept there. Only for comparing:
 * mail still goes to the address as typed.
 */
export function mailboxKey(address: string): string {
  const lower = untagged(comparableAddress(address));
  const at = lower.lastIndexOf("@");
  if (at <= 0) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  if (domain === "googlemail.com") domain = "gmail.com";
  if (domain === "gmail.com") local = local.replaceAll(".", "") || local;
  return `${local}@${domain}`;
}
