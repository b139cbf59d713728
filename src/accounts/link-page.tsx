import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { type LiveLink, openLink } from "../core/links.js";
import { renderPage, safeNext } from "./page.js";
import { ConfirmLinkPage } from "./sign-in-pages.js";

/**
 * Path parameters `{ token }` of the accounts' emailed links (sign-in, email change, my data). Their tokens are 43
 * characters (core/tokens.ts); these addresses have always answered 404 past 100, a little tighter than TokenParams.
 */
export const LinkTokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

/**
 * GET `{path}/{token}`: the page an emailed single-use link opens. It only shows a button that POSTs the token to
 * `path`; opening it (as mail scanners do) uses nothing up. An expired or used link gets 410 and says so.
 */
export function linkPage(
  app: FastifyInstance,
  page: {
    path: string;
    /** The purpose of the emailed link (core/links.ts) the token names... */
    purpose?: string;
    /** ...or, for links kept elsewhere, whether a token is still usable. */
    isLive?: (token: string) => Promise<boolean>;
    title: string;
    /** What pressing the button will do; may name what the link is for (its address, its account). */
    intro: string | ((link: LiveLink) => Promise<string>);
    button: string;
    expired: string;
  },
): void {
  const civic = app.civic;
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    `${page.path}/:token`,
    {
      schema: {
        hide: true,
        params: LinkTokenParams,
        querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 600 })) }),
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const next = safeNext(request.query.next ?? "");
      const link =
        page.purpose === undefined ? null : await openLink(civic.database.db, page.purpose, token, civic.now());
      const live = page.isLive ? await page.isLive(token) : link !== null;
      const intro = typeof page.intro === "string" ? page.intro : link ? await page.intro(link) : "";
      // The token in this page's address never reaches another site. Not "no-referrer": browsers then send
      // `Origin: null` with the page's form post, which the form check refuses (core/http/csrf.ts).
      reply.header("referrer-policy", "same-origin");
      reply.header("cache-control", "no-store");
      return renderPage(
        request,
        reply,
        page.title,
        (ctx) => (
          <ConfirmLinkPage
            csrfToken={ctx.csrfToken}
            token={live ? token : null}
            next={next}
            action={page.path}
            title={page.title}
            intro={intro}
            button={page.button}
            expired={page.expired}
          />
        ),
        { status: live ? 200 : 410 },
      );
    },
  );
}
