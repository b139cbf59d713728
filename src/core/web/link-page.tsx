import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { ComponentChildren } from "preact";
import { Type } from "typebox";
import { pageContext } from "../context.js";
import { type LinkPurpose, type LiveLink, openLink } from "../links.js";
import { TokenParams } from "../tokens.js";
import { Layout } from "./layout.js";
import { sendPage } from "./render.js";

const Next = Type.Object({ next: Type.Optional(Type.String({ maxLength: 600 })) });

/**
 * GET `{path}/:token`, the page an emailed link (core/links.ts) opens. It reads the link and changes nothing (mail
 * scanners open links): it shows what pressing its button will do, with the button, whose POST is the feature's
 * own route. A link that is expired, used up or revoked, or whose row no longer needs it (`body` gives null), is
 * answered 410 with a way to ask for a new one. The path parameter is named `token` (TokenParams), which the access
 * log redacts; the answer is `private, no-store` (core/http/private-responses.ts, every `:token` route) and its
 * address never leaves the site as a referrer.
 */
export function emailLinkPage(
  app: FastifyInstance,
  page: {
    path: string;
    purpose: LinkPurpose;
    title: string;
    /** What pressing the button will do, with the button; null when the link has nothing left to do. */
    body: (
      link: LiveLink,
      /** `next`: the page's `next` query parameter as given (unchecked). */
      form: { token: string; csrfToken: string; next: string },
    ) => Promise<ComponentChildren | null> | ComponentChildren | null;
    /** Said when the link cannot be used. */
    gone: string;
    /** Where to ask for a new link. */
    askAgain: { href: string; label: string };
  },
): void {
  const civic = app.civic;
  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get(
      `${page.path}/:token`,
      { schema: { hide: true, params: TokenParams, querystring: Next } },
      async (request, reply) => {
        const { token } = request.params;
        const ctx = pageContext(request);
        const link = await openLink(civic.database.db, page.purpose, token, civic.now());
        const next = request.query.next ?? "";
        const body = link ? await page.body(link, { token, csrfToken: ctx.csrfToken, next }) : null;
        // Not "no-referrer": browsers then send `Origin: null` with the page's form post, which the form check refuses.
        reply.header("referrer-policy", "same-origin");
        return sendPage(
          reply,
          <Layout ctx={ctx} title={page.title}>
            <h1>{page.title}</h1>
            {body ?? (
              <>
                <p>{page.gone}</p>
                <p>
                  <a href={page.askAgain.href}>{page.askAgain.label}</a>
                </p>
              </>
            )}
          </Layout>,
          body ? 200 : 410,
        );
      },
    );
}
