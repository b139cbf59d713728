import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FunctionComponent } from "preact";
import { pageContext } from "../core/context.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import type { SitePage } from "../core/web/sitemap.js";
import { SITE_PAGES } from "./pages.js";
import { AboutContent } from "./content/about.js";
import { AccessibilityContent } from "./content/accessibility.js";
import { HomeContent } from "./content/home.js";
import { type MapTilesSource, PrivacyContent } from "./content/privacy.js";
import { TermsContent } from "./content/terms.js";
import type { ContentProps } from "../core/site.js";
import { type HomeBlock, homeBlocks } from "../core/web/blocks.js";
import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { Fragment } from "preact";
import { Type } from "typebox";
import { MAX_QUERY_CHARS, searchTerms } from "../core/search.js";
import { SearchContent } from "./content/search.js";

function page(path: string): SitePage {
  const found = SITE_PAGES.find((p) => p.path === path);
  if (!found) throw new Error(`${path} is not among the site's pages`);
  return found;
}

const staticPages: Record<string, FunctionComponent<ContentProps & { mapTiles: MapTilesSource }>> = {
  "/about": AboutContent,
  "/terms": TermsContent,
  "/privacy": PrivacyContent,
  "/accessibility": AccessibilityContent,
};

/** The home page and the static pages of the site map. */
export async function siteRoutes(app: FastifyInstance): Promise<void> {
  const home = page("/");
  // The features' blocks of the home page (their manifests' `home`): the site imports no feature.
  const blocks = homeBlocks(app.civic.features);
  const render = (list: HomeBlock[], db: Kysely<DB>) =>
    Promise.all(list.map(async (b, i) => <Fragment key={i}>{await b.render(db)}</Fragment>));
  const { map } = app.civic.config;
  const mapTiles = { proxied: map.proxy, server: new URL(map.upstreamUrl.replace(/\{[a-z]\}/g, "a")).hostname };
  app.get("/", { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const db = app.civic.database.db;
    const [lead, main] = await Promise.all([blocks.lead, blocks.main].map((list) => render(list, db)));
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={home.title} description={home.summary}>
        <HomeContent site={ctx.site} lead={lead} main={main} />
      </Layout>,
    );
  });
  /** How many matches of each source /search shows. */
  const SEARCH_HITS = 5;
  const search = page("/search");
  app.get(
    "/search",
    { schema: { hide: true, querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 20_000 })) }) } },
    async (request, reply) => {
      const db = app.civic.database.db;
      const text = ((request.query as { q?: string }).q ?? "").slice(0, MAX_QUERY_CHARS).trim();
      const terms = searchTerms(text);
      // Every searchable part of this app, from the features' manifests, in the order of src/features.ts.
      const sources = app.civic.features.flatMap((f) => f.search ?? []);
      const results =
        text === ""
          ? null
          : await Promise.all(
              sources.map(async (s) => ({
                label: s.label,
                moreUrl: `${s.path}?q=${encodeURIComponent(text)}`,
                hits: await s.search(db, { text, terms }, SEARCH_HITS),
              })),
            );
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title={text ? `Search results for “${text}”` : search.title} description={search.summary}>
          <SearchContent text={text} results={results} />
        </Layout>,
      );
    },
  );
  for (const [path, Content] of Object.entries(staticPages)) {
    const meta = page(path);
    app.get(path, { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title={meta.title} description={meta.summary}>
          <Content site={ctx.site} mapTiles={mapTiles} />
        </Layout>,
      );
    });
  }
}
