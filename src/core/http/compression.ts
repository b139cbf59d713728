import type { Readable } from "node:stream";
import { pipeline } from "node:stream";
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
} from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { LRUCache } from "lru-cache";

/**
 * Compression of every text answer (docs/api.md "Compression"). Static assets are compressed at build time
 * (scripts/build.mjs writes .br and .gz files, served by @fastify/static's preCompressed mode); everything else a
 * route sends (pages, feeds, Open311, the OpenAPI description, /llms.txt, the site map) is compressed here, on its
 * way out, when its type is text and it is at least COMPRESS_THRESHOLD bytes; every text answer, and every 304 of
 * these routes, carries Vary: Accept-Encoding. A route that encodes its answers itself (the business API's prepared
 * representations) or sends only binary ones (photos) declares `config: { compress: false }` and costs nothing.
 *
 * A strong ETag gets the encoding as a suffix (`"tag"` → `"tag-br"`, `"tag-gzip"`), since a strong tag promises
 * byte identity and the encoded bytes differ; a client that sends the encoded tag back in If-None-Match gets a 304
 * carrying that tag, while the route itself only ever compares with the identity tag (core/http/conditional.ts).
 */

export type Coding = "br" | "gzip" | "identity";

const CODING = /^\s*([A-Za-z0-9*!#$%&'+.^_`|~-]+)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$/;
const PREFERENCE: Coding[] = ["br", "gzip", "identity"];

/**
 * Picks the response encoding from Accept-Encoding (RFC 9110 §12.5.3): the acceptable coding with the highest
 * q-value, ties broken in favour of brotli, then gzip. Identity is acceptable unless refused, and is also the
 * answer when nothing else is (we never answer 406 for an encoding).
 */
export function negotiateEncoding(header: string | string[] | undefined): Coding {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value) return "identity";
  const known = negotiated.get(value);
  if (known) return known;
  const coding = parseAcceptEncoding(value);
  // Clients send a handful of distinct Accept-Encoding values; remember them (bounded).
  if (negotiated.size >= 256) negotiated.clear();
  negotiated.set(value, coding);
  return coding;
}

const negotiated = new Map<string, Coding>();

function parseAcceptEncoding(value: string): Coding {
  const q = new Map<string, number>();
  for (const part of value.split(",")) {
    const m = CODING.exec(part);
    if (!m) continue;
    const weight = m[2] === undefined ? 1 : Number(m[2]);
    if (!Number.isFinite(weight)) continue;
    q.set((m[1] as string).toLowerCase(), Math.min(weight, 1));
  }
  const star = q.get("*");
  const weightOf = (c: Coding) => {
    const direct = c === "gzip" ? (q.get("gzip") ?? q.get("x-gzip")) : q.get(c);
    if (direct !== undefined) return direct;
    if (star !== undefined) return star;
    return c === "identity" ? 0.001 : 0;
  };
  let best: Coding = "identity";
  let bestWeight = 0;
  for (const c of PREFERENCE) {
    const w = weightOf(c);
    if (w > bestWeight) {
      best = c;
      bestWeight = w;
    }
  }
  return best;
}

/** Answers smaller than this go out as they are: below about a packet, compression saves nothing worth its cost. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Media types worth compressing: text, JSON, XML, YAML, JavaScript, SVG (and their +json/+xml kin); not
 * text/event-stream, whose events must not wait in a compressor's buffer.
 */
const COMPRESSIBLE =
  /^\s*(?:text\/(?!event-stream)|application\/(?:json|xml|javascript|ecmascript|yaml|x-yaml|[a-z0-9.!#$&^_-]+\+(?:json|xml))\s*(?:;|$)|image\/svg\+xml\s*(?:;|$))/i;

/** True when a Content-Type is one this platform compresses (text of any kind; never images, zips, photos). */
export function isCompressibleType(type: string): boolean {
  return COMPRESSIBLE.test(type);
}

/** Above this, a body is compressed off the main thread (zlib's thread pool) instead of in the request's turn. */
const LARGE = 64 * 1024;

/**
 * Brotli options for text of `size` bytes (unknown: -1, a stream) at `quality`: text mode, and the window sized to
 * the input. Used here and by the business API's prepared representations (businesses/representation.ts).
 */
export function brotliTextOptions(size: number, quality: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      ...(size > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: size } : {}),
      [constants.BROTLI_PARAM_LGWIN]:
        size > 0 ? Math.max(10, Math.min(22, Math.ceil(Math.log2(size + 1)) + 1)) : constants.BROTLI_DEFAULT_WINDOW,
    },
  };
}

/**
 * Brotli at quality 4 for bodies compressed per request (20 KB of text: about 0.3 ms, the size gzip -9 gives in
 * 0.5 ms; quality 11 would take 24 ms for 15 % less), 5 for those kept under their entity tag and served again
 * (0.5 ms, 5 % smaller).
 */
const brotliOptions = (size: number, kept: boolean) => brotliTextOptions(size, kept ? 5 : 4);
const GZIP_OPTIONS = { level: 6 };

/** The strong entity tag of one encoding of a representation: `"tag"` → `"tag-br"`. */
export function encodedEtag(etag: string, coding: Coding): string {
  return coding === "identity" ? etag : `${etag.slice(0, -1)}-${coding}"`;
}

const isStrongTag = (value: unknown): value is string =>
  typeof value === "string" && value.length >= 2 && value.charCodeAt(0) === 34 && value.endsWith('"');

/** Adds Accept-Encoding to the answer's Vary, once. */
function varyOnEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader("vary");
  if (vary === undefined || vary === "") {
    reply.header("vary", "Accept-Encoding");
    return;
  }
  const value = Array.isArray(vary) ? vary.join(", ") : String(vary);
  if (value.trim() === "*" || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(value)) return;
  reply.header("vary", `${value}, Accept-Encoding`);
}

/** The identity tags of the encoded tags a request sent back in If-None-Match (see acceptEncodedTags). */
const encodedTagsSent = new WeakMap<FastifyRequest, Set<string>>();
const QUOTED_TAG = /(?:^|[\s,])("[^"]*")/g;

/**
 * onRequest: a client that sends back `"tag-br"` (the tag of the brotli bytes it holds) asks whether `"tag"` has
 * changed, for the encoding it negotiates now. The identity tag is added to its If-None-Match, so the route's own
 * comparison (noneMatchSatisfied with the identity tag) answers 304; the 304 then carries the encoded tag again.
 */
function acceptEncodedTags(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const header = request.headers["if-none-match"];
  if (header === undefined) return done();
  const coding = negotiateEncoding(request.headers["accept-encoding"]);
  if (coding === "identity") return done();
  const value = Array.isArray(header) ? header.join(", ") : header;
  const suffix = `-${coding}"`;
  if (!value.includes(suffix)) return done();
  const tags = new Set<string>();
  for (const m of value.matchAll(QUOTED_TAG)) {
    const tag = m[1] as string;
    if (tag.length > suffix.length + 1 && tag.endsWith(suffix)) tags.add(`${tag.slice(0, -suffix.length)}"`);
  }
  if (tags.size === 0) return done();
  encodedTagsSent.set(request, tags);
  request.raw.headers["if-none-match"] = `${value}, ${[...tags].join(", ")}`;
  done();
}

type Done = (error: Error | null, payload?: unknown) => void;

const isStream = (payload: unknown): payload is Readable =>
  typeof payload === "object" && payload !== null && typeof (payload as Readable).pipe === "function";

/**
 * Encoded bodies kept under their entity tag (and status, URL and type: a tag is only unique within its resource), so
 * an unchanged document (the OpenAPI description, an Open311 search, the site map, a feed) is compressed once; one
 * store per app.
 */
type Kept = LRUCache<string, { identityLength: number; encoded: Buffer }>;

/** Answers sent as they are, whatever the client accepts (leaveUncompressed). */
const uncompressed = new WeakSet<FastifyReply>();

/**
 * Sends this answer uncompressed: for a page that shows back text of the request beside personal data it cannot
 * leave out (the staff console's searches list people), where the compressed length would tell whether the text
 * guessed some of it right (BREACH; issue 33 #6).
 */
export function leaveUncompressed(reply: FastifyReply): void {
  uncompressed.add(reply);
}

/** onSend: compresses a text answer for the negotiated encoding; see the module comment. */
function compressAnswer(kept: Kept, request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
  if (payload === null || payload === undefined) {
    if (reply.statusCode === 304) notModified(request, reply);
    return done(null, payload);
  }
  const status = reply.statusCode;
  if (status < 200 || status === 204 || status === 206 || reply.hasHeader("content-encoding")) {
    return done(null, payload);
  }
  const type = reply.getHeader("content-type");
  if (typeof type !== "string" || !isCompressibleType(type)) return done(null, payload);
  // Every text answer varies on Accept-Encoding, small ones too: so does the 304 that revalidates it, whose size
  // is not known.
  varyOnEncoding(reply);
  let size: number;
  if (typeof payload === "string") size = Buffer.byteLength(payload);
  else if (Buffer.isBuffer(payload)) size = payload.length;
  else if (isStream(payload)) {
    const length = reply.getHeader("content-length");
    size = length === undefined ? -1 : Number(length);
  } else return done(null, payload);
  if (size >= 0 && size < COMPRESS_THRESHOLD) return done(null, payload);
  if (uncompressed.has(reply)) return done(null, payload);

  const coding = negotiateEncoding(request.headers["accept-encoding"]);
  if (coding === "identity") return done(null, payload);
  reply.header("content-encoding", coding);
  reply.removeHeader("content-length");
  const etag = reply.getHeader("etag");
  const tag = isStrongTag(etag) ? encodedEtag(etag, coding) : undefined;
  if (tag) reply.header("etag", tag);

  if (isStream(payload)) {
    // A HEAD answer's body is dropped unread: no need to compress it.
    if (request.method === "HEAD") return done(null, payload);
    const encoder = coding === "br" ? createBrotliCompress(brotliOptions(size, false)) : createGzip(GZIP_OPTIONS);
    pipeline(payload, encoder, (error) => {
      if (error) request.log.warn({ err: error }, "a compressed answer was cut short");
    });
    return done(null, encoder);
  }

  const key = tag ? `${status} ${request.url}\n${type}\n${tag}` : undefined;
  const hit = key ? kept.get(key) : undefined;
  // The length is a guard: a tag that (wrongly) stayed the same for other bytes is not trusted.
  if (hit && hit.identityLength === size) return done(null, hit.encoded);
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  const keep = (encoded: Buffer) => {
    if (key) kept.set(key, { identityLength: size, encoded });
    return encoded;
  };
  if (size < LARGE) {
    const encoded =
      coding === "br" ? brotliCompressSync(body, brotliOptions(size, !!key)) : gzipSync(body, GZIP_OPTIONS);
    return done(null, keep(encoded));
  }
  const finish = (error: Error | null, encoded: Buffer) => (error ? done(error) : done(null, keep(encoded)));
  if (coding === "br") brotliCompress(body, brotliOptions(size, !!key), finish);
  else gzip(body, GZIP_OPTIONS, finish);
}

/**
 * A 304 carries the Vary of the 200 it revalidates; to a client that sent back an encoded tag, it carries that tag
 * (the one of the bytes it holds, for the encoding it negotiated), not the route's identity tag.
 */
function notModified(request: FastifyRequest, reply: FastifyReply): void {
  varyOnEncoding(reply);
  const sent = encodedTagsSent.get(request);
  if (!sent) return;
  const etag = reply.getHeader("etag");
  if (!isStrongTag(etag) || !sent.has(etag)) return;
  reply.header("etag", encodedEtag(etag, negotiateEncoding(request.headers["accept-encoding"])));
}

type Hook<T> = T | T[] | undefined;
const asList = <T>(hook: Hook<T>): T[] => (hook === undefined ? [] : Array.isArray(hook) ? hook : [hook]);

/**
 * Compression for every route registered after this call (except those with `config: { compress: false }`) and
 * for the not-found answers. The onSend hook is the route's last, so hooks that read or keep the payload (the
 * idempotency store) see it as the route made it; on the HEAD route Fastify derives from a GET it comes before
 * Fastify's own HEAD hook, which measures the body and drops it, so HEAD carries the headers GET would.
 */
export function registerCompression(app: FastifyInstance): void {
  const kept: Kept = new LRUCache({ maxSize: 16 * 1024 * 1024, sizeCalculation: (entry) => entry.encoded.length || 1 });
  const onSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) =>
    compressAnswer(kept, request, reply, payload, done);
  app.addHook("onRoute", (route: RouteOptions) => {
    if (route.config?.compress === false) return;
    route.onRequest = [...asList(route.onRequest), acceptEncodedTags] as RouteOptions["onRequest"];
    const hooks = asList(route.onSend);
    const last = hooks[hooks.length - 1];
    if (route.method === "HEAD" && last?.name === "headRouteOnSendHandler") {
      route.onSend = [...hooks.slice(0, -1), onSend, last] as RouteOptions["onSend"];
    } else {
      route.onSend = [...hooks, onSend] as RouteOptions["onSend"];
    }
  });
  // Unknown addresses have no route of their own: their answers (an HTML page, problem+json) are handled here.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (!request.is404) return done(null, payload);
    onSend(request, reply, payload, done);
  });
}
