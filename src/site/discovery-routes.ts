import type { FastifyInstance } from "fastify";
import { escapeXml } from "../core/http/xml.js";
import { sitePages } from "../core/web/sitemap.js";
import { llmsTxt } from "./llms.js";

/** /llms.txt, /robots.txt and /sitemap.xml: what crawlers and discovery tools read. */
export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  const { site } = app.civic;

  app.get("/llms.txt", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header("content-type", "text/plain; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .header("access-control-allow-origin", "*")
      .send(llmsTxt(site)),
  );

  app.get("/robots.txt", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header("content-type", "text/plain; charset=utf-8")
      .header("cache-control", "public, max-age=86400")
      .send(
        [
          "# Everything public here may be indexed. Personal data is never on a public page.",
          "User-agent: *",
          "Allow: /",
          "Disallow: /status?",
          "",
          `Sitemap: ${site.baseUrl}/sitemap.xml`,
          "",
        ].join("\n"),
      ),
  );

  app.get("/sitemap.xml", { schema: { hide: true } }, async (_request, reply) => {
    const db = app.civic.database.db;
    const [projects, businesses, reports] = await Promise.all([
      db.selectFrom("projects").select(["id", "updated_at"]).execute(),
      db.selectFrom("businesses").select(["id", "updated_at"]).where("deleted_at", "is", null).execute(),
      db
        .selectFrom("reports")
        .select(["reference", "updated_at"])
        .where("visibility", "=", "public")
        .orderBy("created_at", "desc")
        .limit(40_000)
        .execute(),
    ]);
    const entries: { path: string; lastmod?: string }[] = [
      ...sitePages.filter((p) => app.hasRoute({ method: "GET", url: p.path })).map((p) => ({ path: p.path })),
      ...projects.map((p) => ({ path: `/projects/${encodeURIComponent(p.id)}`, lastmod: p.updated_at })),
    ];
    if (app.hasRoute({ method: "GET", url: "/businesses/:id" })) {
      entries.push(
        ...businesses.map((b) => ({ path: `/businesses/${encodeURIComponent(b.id)}`, lastmod: b.updated_at })),
      );
    }
    if (app.hasRoute({ method: "GET", url: "/reports/:reference" })) {
      entries.push(
        ...reports.map((r) => ({ path: `/reports/${encodeURIComponent(r.reference)}`, lastmod: r.updated_at })),
      );
    }
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      ...entries.map(
        (e) =>
          `<url><loc>${escapeXml(`${site.baseUrl}${e.path}`)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`,
      ),
      "</urlset>",
      "",
    ].join("\n");
    return reply
      .header("content-type", "application/xml; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(body);
  });
}
