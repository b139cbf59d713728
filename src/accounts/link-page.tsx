import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { LiveLink } from "../core/links.js";
import { PostForm } from "../core/web/forms.js";
import { emailLinkPage } from "../core/web/link-page.js";
import { safeNext } from "./page.js";

/**
 * Path parameters `{ token }` of the accounts' emailed links (sign-in, email change, my data). Their tokens are 43
 * characters (core/tokens.ts); these addresses have always answered 404 past 100, a little tighter than TokenParams.
 */
export const LinkTokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

/**
 * GET `{path}/{token}`: the page an accounts' emailed link opens (the floor's emailLinkPage). It only shows a button
 * that POSTs the token (and a checked `next`) to `path`; opening it (as mail scanners do) uses nothing up. An
 * expired or used link gets 410 and says so.
 */
export function linkPage(
  app: FastifyInstance,
  page: {
    path: string;
    /** The purpose of the emailed link (core/links.ts) the token names. */
    purpose: string;
    title: string;
    /** What pressing the button will do; may name what the link is for (its address, its account). */
    intro: string | ((link: LiveLink) => Promise<string>);
    button: string;
    expired: string;
    askAgain?: { href: string; label: string };
  },
): void {
  emailLinkPage(app, {
    path: page.path,
    purpose: page.purpose,
    title: page.title,
    gone: page.expired,
    askAgain: page.askAgain ?? { href: "/sign-in", label: "Go to the sign-in page" },
    async body(link, { token, csrfToken, next }) {
      const intro = typeof page.intro === "string" ? page.intro : await page.intro(link);
      const checked = safeNext(next);
      return (
        <>
          <p>{intro}</p>
          <PostForm action={page.path} csrfToken={csrfToken} hidden={{ token, ...(checked ? { next: checked } : {}) }}>
            <button type="submit" class="button">
              {page.button}
            </button>
          </PostForm>
        </>
      );
    },
  });
}
