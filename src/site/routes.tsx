import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FunctionComponent } from "preact";
import { pageContext } from "../core/context.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { type SitePage, sitePages } from "../core/web/sitemap.js";
import { AboutContent } from "./content/about.js";
import { AccessibilityContent } from "./content/accessibility.js";
import { HomeContent } from "./content/home.js";
import { type MapTilesSource, PrivacyContent } from "./content/privacy.js";
import { TermsContent } from "./content/terms.js";
import type { ContentProps } from "../core/site.js";
import { latestPublicReports, placeNames } from "../reports/index.js";

function page(path: string): SitePage {
  const found = sitePages.find((p) => p.path === path);
  if (!found) throw new Error(`${path} is not in the site map`);
  return found;
}

const staticPages: Record<string, FunctionComponent<ContentProps & { mapTiles: MapTilesSource }>> = {
  "/about": AboutContent,
  "/terms": TermsContent,
  "/privacy": PrivacyContent,
  "/accessibility": AccessibilityContent,
};

/** How many of the newest public reports the home page shows. */
const LATEST_REPORTS = 5;

/** The home page and the static pages of the site map. */
export async function siteRoutes(app: FastifyInstance): Promise<void> {
  const home = page("/");
  const { map } = app.civic.config;
  const mapTiles = { proxied: map.proxy, server: new URL(map.upstreamUrl.replace(/\{[a-z]\}/g, "a")).hostname };
  app.get("/", { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const db = app.civic.database.db;
    const [latest, places] = await Promise.all([latestPublicReports(db, LATEST_REPORTS), placeNames(db)]);
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout ctx={ctx} title={home.title} description={home.summary}>
        <HomeContent site={ctx.site} latest={latest} places={places} />
      </Layout>,
    );
  });
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
