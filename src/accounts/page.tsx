import type { FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { pageContext } from "../core/context.js";
import { AppError } from "../core/http/errors.js";
import { formField } from "../core/http/csrf.js";
import { localPath } from "../core/http/redirect.js";
import { Layout, type PageContext } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { can } from "../core/policy.js";

/** Renders one of the accounts pages in the site layout. */
export function renderPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: (ctx: PageContext) => VNode,
  options: { status?: number; hasErrors?: boolean; scripts?: string[] } = {},
): FastifyReply {
  const ctx = pageContext(request);
  return sendPage(
    reply,
    <Layout
      ctx={ctx}
      title={`${options.hasErrors ? "Error: " : ""}${title}`}
      scripts={options.scripts ?? ["enhance.js"]}
    >
      {body(ctx)}
    </Layout>,
    options.status ?? 200,
  );
}

/** A text field of a posted form ("" when missing), capped so a huge field cannot make work. */
export function field(request: FastifyRequest, name: string, max = 1000): string {
  const v = formField(request.body, name) ?? "";
  return v.length > max ? v.slice(0, max) : v;
}

/** A local path to go to after signing in, or "" when the value is not one. */
export function safeNext(value: string): string {
  const path = localPath(value);
  return path.startsWith("/sign-") ? "" : path;
}

/** The signed-in person, or a redirect to the sign-in page that comes back here. */
export function requireViewer(request: FastifyRequest, reply: FastifyReply) {
  if (request.viewer && can(request.viewer, "signed-in")) return request.viewer;
  const next = safeNext(request.url);
  void reply.redirect(next ? `/sign-in?next=${encodeURIComponent(next)}` : "/sign-in", 303);
  return null;
}

export function isRateLimited(error: unknown): error is AppError {
  return error instanceof AppError && error.code === "rate_limited";
}

/** For a form that hit a limit: sets Retry-After and returns the message to show on the form; rethrows anything else. */
export function limitedMessage(reply: FastifyReply, error: unknown): string {
  if (!isRateLimited(error)) throw error;
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  return error.message;
}
