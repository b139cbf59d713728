import { createHash } from "node:crypto";

/**
 * RFC 9110 conditional requests, shared by every cacheable resource (the business API, the dataset export, the
 * OpenAPI description).
 */

/**
 * A strong entity tag computed from the bytes of a representation (SHA-256, 32 base64url characters), so every
 * process gives the same bytes the same tag.
 */
export function contentEtag(body: Buffer | string): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
}

const ENTITY_TAG = /\s*(?:(W\/)?"([^"]*)"|(\*))\s*(?:,|$)/y;

/**
 * RFC 9110 §13.1.2 If-None-Match for GET and HEAD: true when the header is `*` or lists a tag that matches
 * `etag` under the weak comparison (a `W/` prefix on either side is ignored). An unparsable header matches nothing.
 */
export function noneMatchSatisfied(header: string | string[] | undefined, etag: string): boolean {
  if (header === etag) return true;
  const value = (Array.isArray(header) ? header.join(",") : header)?.trim();
  if (!value) return false;
  const wanted = etag.replace(/^W\//, "");
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const start = ENTITY_TAG.lastIndex;
    const m = ENTITY_TAG.exec(value);
    if (!m || ENTITY_TAG.lastIndex === start) return false;
    if (m[3] === "*") return true;
    if (`"${m[2]}"` === wanted) return true;
  }
  return false;
}

/**
 * RFC 9110 §13.2.2, for GET and HEAD: whether to answer 304 Not Modified. If-None-Match decides when the request
 * carries it (against `etag`); only without it is If-Modified-Since read, against `lastModified` at the one-second
 * resolution of an HTTP date. An If-Modified-Since that is not a date is ignored (RFC 9110 §13.1.3).
 */
export function notModified(
  headers: { "if-none-match"?: string | string[]; "if-modified-since"?: string },
  validators: { etag: string; lastModified?: Date },
): boolean {
  const noneMatch = headers["if-none-match"];
  if (noneMatch !== undefined) return noneMatchSatisfied(noneMatch, validators.etag);
  const since = headers["if-modified-since"];
  if (validators.lastModified === undefined || typeof since !== "string") return false;
  const sinceMs = Date.parse(since);
  if (Number.isNaN(sinceMs)) return false;
  return Math.floor(validators.lastModified.getTime() / 1000) * 1000 <= sinceMs;
}
