import type { FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** Renders a full page (auto-escaped JSX) to an HTML document string. */
export function renderDocument(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}

/** Sends a rendered page. Pages are personal to the request (form tokens), so they are not stored by caches. */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .send(renderDocument(page));
}
