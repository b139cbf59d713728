import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { Feature } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { contentEtag, noneMatchSatisfied } from "../core/http/conditional.js";
import { notFound } from "../core/http/errors.js";
import { escapeXml } from "../core/http/xml.js";
import { type SitemapEntry, type SitemapSource, sitePages } from "../core/web/sitemap.js";

/**
 * Limits per file (sitemaps.org allows up to 50,000 URLs and 50 MB); a sitemap past either is split into a sitemap
 * index and child sitemaps. Parts of 10,000 URLs (about 1 MB) are quick to serve and to fetch.
 */
export interface SitemapLimits {
  maxUrlsPerFile: number;
  maxBytesPerFile: number;
  /** How long a prepared sitemap is served before the data version is checked again, ms. */
  freshMs: number;
}

export const SITEMAP_LIMITS: SitemapLimits = {
  maxUrlsPerFile: 10_000,
  maxBytesPerFile: 50 * 1024 * 1024,
  freshMs: 60_000,
};

/** Entries of one source listed, at most (the newest public reports: a hard cap on what one version holds in memory). */
const MAX_ENTRIES = 200_000;
const CACHE_CONTROL = "public, max-age=3600";
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const URLSET_OPEN = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
const URLSET_CLOSE = "</urlset>\n";

interface PreparedFile {
  body: Buffer;
  etag: string;
}

/** One data version of the sitemap: `/sitemap.xml` (a urlset, or an index when split) and its children. */
interface Prepared {
  version: string;
  main: PreparedFile;
  children: PreparedFile[];
}

function prepared(text: string): PreparedFile {
  const body = Buffer.from(text);
  return { body, etag: contentEtag(body) };
}

/** The sources of every feature of this app (their manifests' `sitemap`), in the order of src/features.ts. */
function sitemapSources(features: readonly Feature[]): SitemapSource[] {
  return features.flatMap((f) => f.sitemap ?? []);
}

/** The data version: every source's fingerprint (counts and high-water marks, answered from indexes or a few rows). */
async function dataVersion(db: Kysely<DB>, sources: SitemapSource[]): Promise<string> {
  return JSON.stringify(await Promise.all(sources.map((s) => s.version(db))));
}

/** Splits url lines into files within both limits (the wrapper of each file counted). */
function split(lines: string[], limits: SitemapLimits): string[][] {
  const wrapper = Buffer.byteLength(XML_HEAD + URLSET_OPEN + URLSET_CLOSE);
  const files: string[][] = [[]];
  let bytes = wrapper;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    const current = files[files.length - 1] as string[];
    if (current.length > 0 && (current.length >= limits.maxUrlsPerFile || bytes + size > limits.maxBytesPerFile)) {
      files.push([line]);
      bytes = wrapper + size;
    } else {
      current.push(line);
      bytes += size;
    }
  }
  return files;
}

const urlset = (lines: string[]) => `${XML_HEAD}${URLSET_OPEN}${lines.map((l) => `${l}\n`).join("")}${URLSET_CLOSE}`;

/**
 * /sitemap.xml, prepared once per data version and served with an ETag (304 on a match). Past the sitemaps.org
 * limits it becomes a sitemap index pointing at /sitemap-1.xml, /sitemap-2.xml, …. Register with `limits` to use
 * other limits (tests); under a prefix, the index points at the children under the same prefix.
 */
export async function sitemapRoutes(app: FastifyInstance, options: { limits?: Partial<SitemapLimits> }): Promise<void> {
  const limits = { ...SITEMAP_LIMITS, ...options.limits };
  const { civic } = app;
  const base = `${civic.site.baseUrl}${app.prefix}`;
  let current: Prepared | null = null;
  let checkedAt = -Infinity;
  const sources = sitemapSources(civic.features);
  const generation = () => sources.reduce((sum, s) => sum + (s.generation?.() ?? 0), 0);
  let checkedGeneration = generation();
  let pending: Promise<Prepared> | null = null;

  async function build(version: string): Promise<Prepared> {
    const db = civic.database.db;
    const listed = await Promise.all(sources.map((s) => s.entries?.(db, MAX_ENTRIES) ?? []));
    const entries: SitemapEntry[] = sitePages(civic.features)
      .filter((p) => app.hasRoute({ method: "GET", url: p.path }))
      .map((p) => ({ path: p.path }));
    // A loop, not push(...list): 200,000 arguments overflow the call stack.
    for (const list of listed) for (const entry of list) entries.push(entry);
    const lines = entries.map(
      (e) =>
        `<url><loc>${escapeXml(`${civic.site.baseUrl}${e.path}`)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`,
    );
    const files = split(lines, limits);
    if (files.length === 1) return { version, main: prepared(urlset(lines)), children: [] };
    let at = 0;
    const index = files.map((file, i) => {
      const newest = entries
        .slice(at, at + file.length)
        .reduce<string | undefined>((max, e) => (e.lastmod && (!max || e.lastmod > max) ? e.lastmod : max), undefined);
      at += file.length;
      const loc = escapeXml(`${base}/sitemap-${i + 1}.xml`);
      return `<sitemap><loc>${loc}</loc>${newest ? `<lastmod>${newest}</lastmod>` : ""}</sitemap>\n`;
    });
    return {
      version,
      main: prepared(
        `${XML_HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${index.join("")}</sitemapindex>\n`,
      ),
      children: files.map((file) => prepared(urlset(file))),
    };
  }

  /** The sitemap of the current data version: rebuilt only when the version moved, checked at most every `freshMs`. */
  function sitemap(): Promise<Prepared> {
    const now = civic.now().getTime();
    const moderated = generation();
    if (current && now - checkedAt < limits.freshMs && moderated === checkedGeneration) return Promise.resolve(current);
    pending ??= (async () => {
      try {
        checkedGeneration = moderated;
        const version = await dataVersion(civic.database.db, sources);
        if (current?.version !== version) current = await build(version);
        checkedAt = now;
        return current;
      } finally {
        pending = null;
      }
    })();
    return pending;
  }

  function send(request: FastifyRequest, reply: FastifyReply, file: PreparedFile): FastifyReply {
    reply.header("cache-control", CACHE_CONTROL).header("etag", file.etag);
    if (noneMatchSatisfied(request.headers["if-none-match"], file.etag)) return reply.code(304).send();
    return reply.header("content-type", "application/xml; charset=utf-8").send(file.body);
  }

  app.get("/sitemap.xml", { schema: { hide: true } }, async (request, reply) =>
    send(request, reply, (await sitemap()).main),
  );

  app.get<{ Params: { n: string } }>("/sitemap-:n.xml", { schema: { hide: true } }, async (request, reply) => {
    const n = /^[1-9][0-9]{0,5}$/.test(request.params.n) ? Number(request.params.n) : 0;
    const child = (await sitemap()).children[n - 1];
    if (!child) throw notFound("There is no sitemap at this address.");
    return send(request, reply, child);
  });
}
