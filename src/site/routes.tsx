import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FunctionComponent } from "preact";
import { pageContext } from "../core/context.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { type SitePage, sitePages } from "../core/web/sitemap.js";
import { AboutContent } from "./content/about.js";
import { AccessibilityContent } from "./content/accessibility.js";
import { HomeContent } from "./content/home.js";
import { PrivacyContent } from "./content/privacy.js";
import { TermsContent } from "./content/terms.js";
import type { ContentProps } from "./content/types.js";

function page(path: string): SitePage {
  const found = sitePages.find((p) => p.path === path);
  if (!found) throw new Error(`${path} is not in the site map`);
  return found;
}

/** Areas of the mission whose own features are still to come: until then they say how to take part by email. */
function ComingByEmail({
  site,
  heading,
  intro,
  subject,
}: ContentProps & { heading: string; intro: string; subject: string }) {
  return (
    <>
      <h1>{heading}</h1>
      <p class="lead">{intro}</p>
      <p>
        For now, email the volunteers at{" "}
        <a href={`mailto:${site.contactEmail}?subject=${encodeURIComponent(subject)}`}>{site.contactEmail}</a> with the
        subject “{subject}”. We read every message and reply within a week.
      </p>
      <p>
        Your email address is used only to reply to you. It is never published, sold or shared: see our{" "}
        <a href="/privacy">privacy notice</a>.
      </p>
    </>
  );
}

const staticPages: Record<string, FunctionComponent<ContentProps>> = {
  "/": HomeContent,
  "/about": AboutContent,
  "/terms": TermsContent,
  "/privacy": PrivacyContent,
  "/accessibility": AccessibilityContent,
};

/** The home page and the static pages of the site map. */
export async function siteRoutes(app: FastifyInstance): Promise<void> {
  for (const [path, Content] of Object.entries(staticPages)) {
    const meta = page(path);
    app.get(path, { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title={meta.title} description={meta.summary}>
          <Content site={ctx.site} />
        </Layout>,
      );
    });
  }
}
