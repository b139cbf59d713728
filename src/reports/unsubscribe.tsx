import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { ComponentChildren } from "preact";
import { pageContext } from "../core/context.js";
import { notFound } from "../core/http/errors.js";
import { parseId } from "../core/http/ids.js";
import { keyedHash, TokenParams } from "../core/tokens.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";

/**
 * The one-click unsubscribe (RFC 8058) of the reports feature's mails, shared by the update mails of a report
 * (followers.ts) and the alerts for new reports (alerts.ts): the headers, the tokens and the two routes.
 *
 * A token names a row and proves it with a keyed hash (the server secret), `<prefix><id>.<mac>`, salted with
 * something of the row that changes when it is asked for again, so nothing but the secret and the row is needed to
 * check one and none can be forged or guessed.
 */

/** The RFC 8058 headers of a mail whose one-click unsubscribe address is `url`. */
export function oneClickHeaders(url: string): Record<string, string> {
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
}

/** The unsubscribe token of row `id` (one letter `prefix` says which kind of row), salted with `salt`. */
export function rowToken(secret: string, purpose: string, prefix: string, id: number, salt: string): string {
  return `${prefix}${id}.${keyedHash(secret, purpose, `${prefix}:${id}:${salt}`)}`;
}

/** The kind (one of `prefixes`, letters) and id a token claims to name, or null when it is malformed. */
export function readRowToken(token: string, prefixes: string): { prefix: string; id: number } | null {
  const m = new RegExp(`^([${prefixes}])(\\d{1,15})\\.[A-Za-z0-9_-]{43}$`).exec(token);
  const id = parseId(m?.[2]);
  return m && id !== null ? { prefix: m[1]!, id } : null;
}

/** What the two routes say and do for a row a token names. */
export interface OneClickUnsubscribe<T> {
  /** `{path}/:token`, e.g. "/alerts/unsubscribe". */
  path: string;
  /** The row a token names, or undefined (malformed, forged, or stopped already). */
  find(token: string): Promise<T | undefined>;
  /** The 404's words. */
  gone: string;
  /** The page a GET shows: its title and words; `stopped` when there is nothing left to stop. */
  page(target: T): Promise<{ title: string; lead?: ComponentChildren; stopped?: ComponentChildren; button: string }>;
  stop(target: T): Promise<void>;
  /** The page after a POST. */
  done(target: T): { title: string; heading: string; body: ComponentChildren };
}

/**
 * GET `{path}/:token` shows a page with the button (it changes nothing: mail scanners open links); POST stops. RFC
 * 8058: mail clients POST "List-Unsubscribe=One-Click" with no cookie and no form token; the unguessable token in
 * the address is the authorisation, so the POST is exempt from the form-token check.
 */
export function oneClickUnsubscribeRoutes<T>(root: FastifyInstance, o: OneClickUnsubscribe<T>): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(`${o.path}/:token`, { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const target = await o.find(token);
    if (target === undefined) throw notFound(o.gone);
    const p = await o.page(target);
    return sendPage(
      reply,
      <Layout ctx={pageContext(request)} title={p.title}>
        <h1>{p.title}</h1>
        {p.lead ?? null}
        {p.stopped ?? (
          <form method="post" action={`${o.path}/${token}`}>
            <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            <button type="submit">{p.button}</button>
          </form>
        )}
      </Layout>,
    );
  });

  app.post(
    `${o.path}/:token`,
    { schema: { hide: true, params: TokenParams }, config: { csrf: false } },
    async (request, reply) => {
      const target = await o.find(request.params.token);
      if (target === undefined) throw notFound(o.gone);
      await o.stop(target);
      const d = o.done(target);
      return sendPage(
        reply,
        <Layout ctx={pageContext(request)} title={d.title}>
          <h1>{d.heading}</h1>
          {d.body}
        </Layout>,
      );
    },
  );
}
