import type { FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** Renders a full page (auto-escaped JSX) to an HTML document string. */
export function renderDocument(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}

/**
 * Sends a rendered page. A page may be kept (by the service worker, for offline use) but is checked with the server
 * before every use (fresh form tokens); pages served to a signed-in person, or marked personal, become
 * `private, no-store` in one place (core/http/private-responses.ts).
 */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-cache")
    .send(renderDocument(page));
}
