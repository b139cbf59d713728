/**
 * Generic second-level labels under which country-code top-level domains register names (bbc.co.uk, abc.net.au,
 * gov.uk itself). Under a two-letter top-level domain, a domain whose second-to-last label is one of these keeps
 * three labels instead of two.
 */
const SECOND_LEVEL = new Set([
  "ac",
  "co",
  "com",
  "edu",
  "gov",
  "govt",
  "ltd",
  "me",
  "mod",
  "net",
  "nhs",
  "nic",
  "or",
  "org",
  "plc",
  "police",
  "sch",
]);

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_REFERRER_LENGTH = 2048;

/**
 * The registrable domain of a host name, by a small conservative rule instead of the full Public Suffix List:
 * the last two labels (`news.example.org` -> `example.org`), or three when the second-to-last is a generic
 * second-level label under a two-letter country code (`news.bbc.co.uk` -> `bbc.co.uk`). It may be coarser than the
 * list for private suffixes (`someone.github.io` -> `github.io`), which only ever groups more sites together, never
 * fewer. Returns null for addresses, single-label hosts and anything that is not a DNS name.
 */
export function registrableDomain(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.length === 0 || host.length > 253) return null;
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  const tld = labels[labels.length - 1] as string;
  // IPv4 addresses (and anything ending in a number) are not domains.
  if (/^\d+$/.test(tld)) return null;
  const sld = labels[labels.length - 2] as string;
  const keep = tld.length === 2 && SECOND_LEVEL.has(sld) ? 3 : 2;
  if (labels.length < keep) return null;
  return labels.slice(-keep).join(".");
}

/** The lower-case host name of an http(s) Referer, or null (none, too long, not a URL, an app link). */
export function refererHost(referer: string | undefined): string | null {
  if (!referer || referer.length > MAX_REFERRER_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return url.hostname.toLowerCase();
}

/**
 * The referring site of a page view: the registrable domain of an http(s) Referer from another site, or null
 * (no Referer, our own site, an address, an app link). Only this domain is ever kept, never the URL.
 */
export function referringSite(referer: string | undefined, ownHosts: readonly string[]): string | null {
  const host = refererHost(referer);
  if (host === null || ownHosts.includes(host)) return null;
  return registrableDomain(host);
}
