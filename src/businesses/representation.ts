import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, gzip, gzipSync } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { brotliTextOptions, type Coding, encodedEtag, negotiateEncoding } from "../core/http/compression.js";
import { notModified } from "../core/http/conditional.js";

export { type Coding, negotiateEncoding };

/**
 * HTTP representations prepared once per dataset version: the JSON bytes, their gzip and brotli encodings, and an
 * entity tag per encoding. Sending one is copying bytes: no serialisation, no compression per request.
 */

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const LARGE = 256 * 1024;

/**
 * Brotli settings. Bodies made once per version (export, unfiltered list, single businesses): the densest level for
 * small ones, 5 for large ones (compressed off the main thread). Per-query lists (`fast`) are compressed on the
 * request that first asks for them, so they get quick levels: 4, or 1 above 256 KB (5x faster than 5 for about 15 %
 * more bytes), which keeps a broad search's latency in single milliseconds. The window is sized to the input.
 */
const brotliOptions = (size: number, fast: boolean) =>
  brotliTextOptions(size, fast ? (size > LARGE ? 1 : 4) : size > LARGE ? 5 : 11);

const gzipOptions = (size: number, fast: boolean) => ({ level: fast ? (size > LARGE ? 1 : 6) : size > LARGE ? 6 : 9 });

/** One resource's bytes in every encoding we offer, with a strong ETag per encoding. */
export class Prepared {
  private gz: Buffer | undefined;
  private brotli: Buffer | undefined;

  /**
   * @param identity the uncompressed JSON
   * @param tag the opaque part of the entity tag (the dataset version, or a version of it); each encoding gets its
   *   own suffix, because the encoded bytes differ and a strong tag promises byte identity.
   * @param fast compress on first request with fast settings (per-query responses), instead of the smallest output
   */
  constructor(
    readonly identity: Buffer,
    readonly tag: string,
    private readonly fast = false,
  ) {
    const plain = `"${tag}"`;
    this.etags = { identity: plain, gzip: encodedEtag(plain, "gzip"), br: encodedEtag(plain, "br") };
  }

  /** Compresses both encodings off the main thread (for the large, always-requested documents). */
  async precompress(): Promise<this> {
    const [gz, br] = await Promise.all([
      gzipAsync(this.identity, gzipOptions(this.identity.length, this.fast)),
      brotliAsync(this.identity, brotliOptions(this.identity.length, this.fast)),
    ]);
    this.gz = gz;
    this.brotli = br;
    return this;
  }

  /** The bytes for an encoding, compressed on first use and kept. */
  body(coding: Coding): Buffer {
    if (coding === "gzip") {
      this.gz ??= gzipSync(this.identity, gzipOptions(this.identity.length, this.fast));
      return this.gz;
    }
    if (coding === "br") {
      this.brotli ??= brotliCompressSync(this.identity, brotliOptions(this.identity.length, this.fast));
      return this.brotli;
    }
    return this.identity;
  }

  private readonly etags: Record<Coding, string>;

  /** The quoted strong entity tag of one encoding. */
  etag(coding: Coding): string {
    return this.etags[coding];
  }
}

export interface RepresentationHeaders {
  cacheControl: string;
  /** Extra headers a 200 and a 304 both carry (e.g. X-Dataset-Version). */
  extra?: Record<string, string>;
  contentType?: string;
  /** The item's own change time, for a representation of one item: sent as Last-Modified. */
  lastModified?: Date;
}

/**
 * Sends a prepared representation with its validators and caching headers, or a 304 with the same headers when
 * If-None-Match matches. The payload is a Buffer, so Fastify sends it as it is.
 */
export function sendPrepared(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: Prepared,
  headers: RepresentationHeaders,
): FastifyReply {
  const coding = negotiateEncoding(request.headers["accept-encoding"]);
  const etag = prepared.etag(coding);
  reply.headers({ "cache-control": headers.cacheControl, vary: "Accept-Encoding", etag, ...headers.extra });
  const { lastModified } = headers;
  if (lastModified) reply.header("last-modified", lastModified.toUTCString());
  // If-None-Match decides when sent; If-Modified-Since only without it (RFC 9110 §13.2.2).
  if (notModified(request.headers, { etag, lastModified })) {
    return reply.code(304).send();
  }
  reply.header("content-type", headers.contentType ?? "application/json");
  if (coding !== "identity") reply.header("content-encoding", coding);
  return reply.code(200).send(prepared.body(coding));
}
