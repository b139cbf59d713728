import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NotFoundContent } from "../../site/content/not-found.js";
import { ServerErrorContent } from "../../site/content/server-error.js";
import { pageContext } from "../context.js";
import { Layout } from "../web/layout.js";
import { sendPage } from "../web/render.js";
import { AppError, type FieldProblem, isAppError } from "./errors.js";
import { escapeXml } from "./xml.js";

/** Which API family a URL belongs to; errors are answered in that family's format. */
export type RouteFamily = "open311" | "problem" | "html";

/** True for the machine-readable resources (the APIs and the dataset export), as opposed to pages. */
export function isApiPath(url: string): boolean {
  return url.startsWith("/api/") || url.startsWith("/data/");
}

export function routeFamily(url: string): RouteFamily {
  if (url.startsWith("/api/v2/") || url === "/api/v2") return "open311";
  if (isApiPath(url) || url === "/healthz") return "problem";
  return "html";
}

/** Turns anything thrown into an AppError with a safe message; unknown errors become `internal`. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const e = error as Partial<FastifyError> & {
    validation?: { instancePath?: string; message?: string; params?: Record<string, unknown> }[];
  };
  if (Array.isArray(e.validation)) {
    const fields: FieldProblem[] = e.validation.map((v) => {
      const missing = typeof v.params?.missingProperty === "string" ? v.params.missingProperty : undefined;
      const field = missing ?? (v.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".") ?? "";
      const message = missing ? "is required" : (v.message ?? "is not valid");
      return { field: field || (e.validationContext ?? "request"), message };
    });
    const detail = fields.map((f) => `${f.field} ${f.message}`).join("; ");
    return new AppError("validation_failed", `The request is not valid: ${detail}.`, { fields });
  }
  switch (e.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
    case "FST_REQ_FILE_TOO_LARGE":
    case "FST_FILES_LIMIT":
    case "FST_PARTS_LIMIT":
      return new AppError("payload_too_large", "The request is too large.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("unsupported_media_type", "This content type is not accepted here.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return new AppError("bad_request", "The request body could not be read.");
  }
  if (e.statusCode === 429) return new AppError("rate_limited", "Too many requests. Please wait and try again.");
  if (e.statusCode === 405) return new AppError("method_not_allowed", "This method is not allowed here.");
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError("bad_request", "The request could not be understood.");
  }
  return new AppError("internal", "Something went wrong on our side.", { cause: error });
}

function sendProblem(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const body: Record<string, unknown> = {
    type: "about:blank",
    title: err.title,
    status: err.status,
    detail: err.message,
    code: err.code,
    instance: request.url.split("?")[0],
    requestId: request.id,
  };
  if (err.fields.length > 0) body.errors = err.fields;
  return reply
    .code(err.status)
    .header("content-type", "application/problem+json; charset=utf-8")
    .header("cache-control", "no-store")
    .send(JSON.stringify(body));
}

/** Open311's error list: `[{"code":…,"description":…}]` or `<errors><error>…</error></errors>`. */
export function sendOpen311Error(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const path = request.url.split("?")[0] ?? "";
  const descriptions = err.fields.length > 0 ? err.fields.map((f) => `${f.field}: ${f.message}`) : [err.message];
  reply.code(err.status).header("cache-control", "no-store");
  if (path.endsWith(".xml")) {
    const items = descriptions
      .map((d) => `<error><code>${err.status}</code><description>${escapeXml(d)}</description></error>`)
      .join("");
    return reply
      .header("content-type", "text/xml; charset=utf-8")
      .send(`<?xml version="1.0" encoding="utf-8"?><errors>${items}</errors>`);
  }
  return reply
    .header("content-type", "application/json; charset=utf-8")
    .send(JSON.stringify(descriptions.map((description) => ({ code: err.status, description }))));
}

function sendHtmlError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const ctx = pageContext(request);
  if (err.code === "not_found" || err.code === "gone") {
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Page not found">
        <NotFoundContent site={ctx.site} />
      </Layout>,
      err.status,
    );
  }
  if (err.status >= 500) {
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Sorry, something went wrong">
        <ServerErrorContent site={ctx.site} requestId={request.id} />
      </Layout>,
      err.status,
    );
  }
  return sendPage(
    reply,
    <Layout ctx={ctx} title="There is a problem">
      <h1>Sorry, there is a problem with your request</h1>
      <p>{err.message}</p>
      <p>
        Go back and try again, or return to the <a href="/">home page</a>.
      </p>
    </Layout>,
    err.status,
  );
}

/** Sends an AppError in the format of the route family the request belongs to. */
export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  switch (routeFamily(request.url)) {
    case "open311":
      return sendOpen311Error(request, reply, err);
    case "problem":
      return sendProblem(request, reply, err);
    default:
      return sendHtmlError(request, reply, err);
  }
}

/** One error handler and one not-found handler for the whole app. Never a stack trace in a response. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const err = toAppError(error);
    if (err.status >= 500) request.log.error({ err: error }, "request failed");
    else request.log.info({ code: err.code, status: err.status }, err.message);
    return sendError(request, reply, err);
  });
  app.setNotFoundHandler((request, reply) => {
    return sendError(request, reply, new AppError("not_found", "There is nothing at this address."));
  });
}
