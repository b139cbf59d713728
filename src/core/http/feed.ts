import type { FastifyReply, FastifyRequest } from "fastify";
import { contentEtag, notModified } from "./conditional.js";
import { escapeXml } from "./xml.js";

/** An entry of an Atom feed. */
export interface AtomEntry {
  id: string;
  title: string;
  url: string;
  published: string;
  updated: string;
  summary: string;
  /** Its category, as a term and a label. */
  category?: { term: string; label: string };
  /** Where it is, as a GeoRSS point (in a feed that declares `georss`). */
  point?: { lat: number; lng: number } | null;
}

/** What a feed holds; sendAtomFeed writes and sends it. */
export interface AtomFeed {
  title: string;
  selfUrl: string;
  pageUrl: string;
  author?: string;
  /** Declares the GeoRSS namespace, for entries with a `point`. */
  georss?: boolean;
  entries: AtomEntry[];
}

/**
 * The `<updated>` of a feed without entries: a fixed instant rather than the clock, so an empty feed's bytes, and
 * so its entity tag, stay the same from one poll to the next.
 */
export const EMPTY_FEED_UPDATED = "2026-01-01T00:00:00.000Z";

/** Feeds are the same for everyone: any cache may keep one for five minutes, then revalidate it (ETag, 304). */
export const FEED_CACHE_CONTROL = "public, max-age=300";

/** The newest entry's `updated`, or undefined for a feed without entries. */
function newestUpdated(entries: AtomEntry[]): string | undefined {
  return entries.reduce<string | undefined>(
    (max, e) => (max === undefined || e.updated > max ? e.updated : max),
    undefined,
  );
}

/**
 * An Atom (RFC 4287) feed, the one writer of every feed (ideas, project updates, newsletter issues, reports). Its
 * `updated` is the newest entry's, or EMPTY_FEED_UPDATED when there are none; its author is `author`, or else its
 * title. No personal data goes in.
 */
export function atomXml(o: AtomFeed): string {
  const updated = newestUpdated(o.entries) ?? EMPTY_FEED_UPDATED;
  const namespaces = o.georss ? ' xmlns:georss="http://www.georss.org/georss"' : "";
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<feed xmlns="http://www.w3.org/2005/Atom"${namespaces}>`,
    `<id>${escapeXml(o.selfUrl)}</id>`,
    `<title>${escapeXml(o.title)}</title>`,
    `<updated>${updated}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${escapeXml(o.selfUrl)}"/>`,
    `<link rel="alternate" type="text/html" href="${escapeXml(o.pageUrl)}"/>`,
    `<author><name>${escapeXml(o.author ?? o.title)}</name></author>`,
    ...o.entries.map((e) =>
      [
        "<entry>",
        `<id>${escapeXml(e.id)}</id>`,
        `<title>${escapeXml(e.title)}</title>`,
        `<link rel="alternate" type="text/html" href="${escapeXml(e.url)}"/>`,
        `<published>${e.published}</published>`,
        `<updated>${e.updated}</updated>`,
        e.category ? `<category term="${escapeXml(e.category.term)}" label="${escapeXml(e.category.label)}"/>` : "",
        `<summary type="text">${escapeXml(e.summary)}</summary>`,
        e.point ? `<georss:point>${e.point.lat} ${e.point.lng}</georss:point>` : "",
        "</entry>",
      ].join(""),
    ),
    "</feed>",
  ].join("\n");
}

/**
 * Sends a feed, the one way every feed route answers, so each gets the same wire behaviour:
 * - a strong `ETag` from its bytes and `Last-Modified` from its newest entry (none for an empty feed), and 304 Not
 *   Modified for `If-None-Match`, or, without one, `If-Modified-Since` (RFC 9110 §13.2.2); a feed reader's poll of
 *   an unchanged feed downloads nothing. (Only the ETag sees an entry disappear: a reader that sends nothing but
 *   If-Modified-Since learns of it with the next newer entry.)
 * - `Cache-Control: public, max-age=300`;
 * - `Access-Control-Allow-Origin: *`, with ETag and Last-Modified exposed: feeds are public, and web-based readers
 *   fetch them from their own origin.
 */
export function sendAtomFeed(request: FastifyRequest, reply: FastifyReply, feed: AtomFeed): FastifyReply {
  const xml = atomXml(feed);
  const etag = contentEtag(xml);
  const newest = newestUpdated(feed.entries);
  const newestMs = newest === undefined ? Number.NaN : Date.parse(newest);
  // Never later than now (RFC 9110 §8.8.2.1), whatever an entry's clock said.
  const lastModified = Number.isNaN(newestMs)
    ? undefined
    : new Date(Math.min(newestMs, request.server.civic.now().getTime()));
  reply
    .header("cache-control", FEED_CACHE_CONTROL)
    .header("etag", etag)
    .header("access-control-allow-origin", "*")
    .header("access-control-expose-headers", "ETag, Last-Modified");
  if (lastModified) reply.header("last-modified", lastModified.toUTCString());
  if (notModified(request.headers, { etag, lastModified })) return reply.code(304).send();
  return reply.header("content-type", "application/atom+xml; charset=utf-8").send(xml);
}
