import type { FastifyInstance } from "fastify";
import { llmsTxt } from "./llms.js";
import { sitemapRoutes } from "./sitemap-xml.js";

/** /llms.txt, /robots.txt and /sitemap.xml: what crawlers and discovery tools read. */
export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  const { site, features } = app.civic;
  // Made once: the pages and resources of this app's features.
  const llms = llmsTxt(site, features);

  app.get("/llms.txt", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header("content-type", "text/plain; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .header("access-control-allow-origin", "*")
      .send(llms),
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

  await app.register(sitemapRoutes, {});
}
