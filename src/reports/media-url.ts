import { textLength } from "./field-patterns.js";

/**
 * Open311 `media_url`: a link to media hosted elsewhere that an API client sends with a report. Nothing is ever
 * fetched from it (as FixMyStreet, we keep and show the link only): it is published in the Open311 answers and
 * mailed to the council as a plain link (rel="nofollow noopener noreferrer ugc"). So that a link on a report cannot
 * carry credentials, reach a reader's own machine or private network, or point into this site (its pages, its
 * one-use links), it must be:
 * - an absolute `https:` or `http:` URL of at most MEDIA_URL_MAX characters, without white space or control and
 *   format characters (bidirectional overrides among them);
 * - without a user name or password (`user:pass@`);
 * - on a public host name: not an IP address, not a single-label name (`intranet`), not `localhost` or a name under
 *   `.localhost`, `.local`, `.internal` or `.home.arpa`;
 * - not on this site's own host.
 * It is kept normalised (WHATWG URL serialisation: lower-case scheme and host, an international host name in its
 * ASCII form, other characters percent-encoded), so what is shown is what a browser opens.
 */
export const MEDIA_URL_MAX = 2000;

/** Host names that lead to the reader's own machine or network, whatever DNS says. */
const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "home.arpa"] as const;

// White space, controls, format characters (bidi overrides, zero-width), surrogates, private use, unassigned.
const UNSAFE = /[\s\p{C}]/u;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/** The normalised link, or the problem with it (worded after "media_url"). */
export function checkMediaUrl(value: string, ownHost: string): { url: string } | { problem: string } {
  if (textLength(value) > MEDIA_URL_MAX) return { problem: `must be at most ${MEDIA_URL_MAX} characters` };
  if (UNSAFE.test(value)) return { problem: "must not contain spaces, control or formatting characters" };
  const notHttp = { problem: "must be an absolute http or https URL" };
  if (!/^https?:\/\//i.test(value)) return notHttp;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return notHttp;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return notHttp;
  if (url.username !== "" || url.password !== "") return { problem: "must not contain a user name or password" };
  const host = url.hostname.replace(/\.$/, "");
  const isPrivate =
    host.startsWith("[") ||
    IPV4.test(host) ||
    !host.includes(".") ||
    PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
  if (isPrivate) return { problem: "must be on a public host name, not an IP address or a local name" };
  if (host === ownHost.replace(/\.$/, "").toLowerCase()) {
    return { problem: "must link to media elsewhere, not to this site (send photos as `media`)" };
  }
  return { url: url.href };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * checkMediaUrl as a JSON Schema pattern for the API description: stricter than the check, never looser (lower-case
 * ASCII host names only, printable ASCII after them), so a client that honours it sends nothing the check refuses.
 */
export function mediaUrlPattern(ownHost: string): string {
  // A label as lower-case ASCII; never `xn--` (a label the URL parser would have to decode and might refuse).
  const label = "(?!xn--)[a-z0-9-]+";
  const refused = [...PRIVATE_SUFFIXES.map((s) => `(?:${label}\\.)*${escape(s)}`), escape(ownHost.toLowerCase())];
  // The last label starts with a letter: not an IPv4 address in any of its forms; at least one dot: not one label.
  const host = `(?:${label}\\.)+(?!xn--)[a-z][a-z0-9-]*`;
  return `^https?://(?!(?:${refused.join("|")})\\.?(?:[:/?#]|$))${host}\\.?(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$`;
}

/**
 * A stored media_url as it may be shown or mailed: links kept before this rule (issue 33) that it refuses are left
 * out rather than published.
 */
export function shownMediaUrl(stored: string | null, baseUrl: string): string | null {
  if (stored === null) return null;
  const checked = checkMediaUrl(stored, new URL(baseUrl).hostname);
  return "url" in checked ? checked.url : null;
}
