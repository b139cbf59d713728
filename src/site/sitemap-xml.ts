import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { contentEtag, noneMatchSatisfied } from "../core/http/conditional.js";
import { notFound } from "../core/http/errors.js";
import { escapeXml } from "../core/http/xml.js";
import { sitePages } from "../core/web/sitemap.js";
import { publicIn, publicReport } from "../core/visibility.js";
import { moderationGeneration } from "../moderation/index.js";
import { publicReadVersion } from "../reports/index.js";

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

/** The newest public reports listed, at most (a hard cap on what one sitemap version holds in memory). */
const MAX_REPORTS = 200_000;
const CACHE_CONTROL = "public, max-age=3600";
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const URLSET_OPEN = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
const URLSET_CLOSE = "</urlset>\n";

interface Entry {
  path: string;
  lastmod?: string;
}

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

/**
 * A cheap fingerprint of what the sitemap lists: the public read version of reports (any report, update or photo
 * written) and counts and high-water marks that move whenever a project, business, idea, sent newsletter issue or
 * moderation decision changes (all answered from indexes or a few rows).
 */
async function dataVersion(db: Kysely<DB>): Promise<string> {
  const [projects, businesses, reports, decisions, ideas, issues] = await Promise.all([
    db
      .selectFrom("projects")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .executeTakeFirst(),
    db
      .selectFrom("business_changes")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("seq").as("m")])
      .executeTakeFirst(),
    // Moved by triggers on every write to reports, their updates and photos (reports/data-version.ts).
    publicReadVersion(db),
    // Every moderation decision (hide, unhide, remove, redact) changes the version, even when counts stay equal.
    db
      .selectFrom("moderation_decisions")
      .select((eb) => eb.fn.max("id").as("m"))
      .executeTakeFirst(),
    // Ideas (published, answered) and sent newsletter issues.
    db
      .selectFrom("ideas")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .executeTakeFirst(),
    db
      .selectFrom("newsletter_issues")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .where("status", "=", "sent")
      .executeTakeFirst(),
  ]);
  return JSON.stringify([
    projects?.n,
    projects?.m,
    businesses?.n,
    businesses?.m,
    reports,
    decisions?.m,
    ideas?.n,
    ideas?.m,
    issues?.n,
    issues?.m,
  ]);
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
  let checkedGeneration = moderationGeneration();
  let pending: Promise<Prepared> | null = null;

  async function build(version: string): Promise<Prepared> {
    const db = civic.database.db;
    const [projects, businesses, reports] = await Promise.all([
      db.selectFrom("projects").select(["id", "updated_at"]).orderBy("id").execute(),
      db.selectFrom("businesses").select(["id", "updated_at"]).where("deleted_at", "is", null).orderBy("id").execute(),
      db
        .selectFrom("reports")
        .select(["reference", "updated_at"])
        .where(publicReport)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(MAX_REPORTS)
        .execute(),
    ]);
    const entries: Entry[] = [
      ...sitePages.filter((p) => app.hasRoute({ method: "GET", url: p.path })).map((p) => ({ path: p.path })),
      ...projects.map((p) => ({ path: `/projects/${encodeURIComponent(p.id)}`, lastmod: p.updated_at })),
    ];
    if (app.hasRoute({ method: "GET", url: "/ideas/:id" })) {
      const ideas = await db
        .selectFrom("ideas")
        .select(["id", "updated_at"])
        .where("status", "!=", "unconfirmed")
        .where(publicIn("ideas"))
        .orderBy("id", "desc")
        .limit(MAX_REPORTS)
        .execute();
      for (const i of ideas) entries.push({ path: `/ideas/${i.id}`, lastmod: i.updated_at });
    }
    if (app.hasRoute({ method: "GET", url: "/newsletter/archive/:id" })) {
      const sent = await db
        .selectFrom("newsletter_issues")
        .select(["id", "updated_at"])
        .where("status", "=", "sent")
        .orderBy("id", "desc")
        .limit(MAX_REPORTS)
        .execute();
      entries.push(...sent.map((i) => ({ path: `/newsletter/archive/${i.id}`, lastmod: i.updated_at })));
    }
    if (app.hasRoute({ method: "GET", url: "/councillors/:id" })) {
      const councillors = await db.selectFrom("councillors").select("id").orderBy("sort_order").execute();
      entries.push(...councillors.map((c) => ({ path: `/councillors/${encodeURIComponent(c.id)}` })));
    }
    if (app.hasRoute({ method: "GET", url: "/businesses/:id" })) {
      for (const b of businesses)
        entries.push({ path: `/businesses/${encodeURIComponent(b.id)}`, lastmod: b.updated_at });
    }
    if (app.hasRoute({ method: "GET", url: "/reports/:reference" })) {
      // A loop, not push(...list): 200,000 arguments overflow the call stack.
      for (const r of reports)
        entries.push({ path: `/reports/${encodeURIComponent(r.reference)}`, lastmod: r.updated_at });
    }
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
    const moderated = moderationGeneration();
    if (current && now - checkedAt < limits.freshMs && moderated === checkedGeneration) return Promise.resolve(current);
    pending ??= (async () => {
      try {
        checkedGeneration = moderated;
        const version = await dataVersion(civic.database.db);
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
