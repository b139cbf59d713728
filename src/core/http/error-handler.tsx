import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { pageContext } from "../context.js";
import { Layout } from "../web/layout.js";
import { sendPage } from "../web/render.js";
import { notFoundBlocks } from "../web/blocks.js";
import { Fragment } from "preact";
import {
  AppError,
  type FieldProblem,
  isAppError,
  ReplayedResponse,
  type RouteFamily,
  unreadableBody,
} from "./errors.js";

export { unreadableBody };
import { wasInputRead } from "./input.js";
import { escapeXml } from "./xml.js";
import { errorWithoutSecrets, withoutSecrets } from "./secret-paths.js";

export type { RouteFamily };

/** True for the machine-readable resources (the APIs and the dataset export), as opposed to pages. */
export function isApiPath(url: string): boolean {
  return url.startsWith("/api/") || url.startsWith("/data/");
}

export function routeFamily(url: string): RouteFamily {
  if (url.startsWith("/api/v2/") || url === "/api/v2") return "open311";
  if (isApiPath(url) || url === "/healthz" || url === "/readyz") return "problem";
  return "html";
}

/**
 * Like toAppError, knowing the request: busboy's multipart errors ("boundary not found", "unexpected end of form")
 * carry no code, so an uncoded error thrown while a multipart body was still being read (before the input check
 * that follows the body parsers) is a malformed body, a 400, never a 500.
 */
export function requestError(error: unknown, request: FastifyRequest): AppError {
  const e = error as Partial<FastifyError>;
  if (
    !isAppError(error) &&
    e.code === undefined &&
    e.statusCode === undefined &&
    !wasInputRead(request) &&
    (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")
  ) {
    return unreadableBody(error);
  }
  return toAppError(error);
}

/** Turns anything thrown into an AppError with a safe message; unknown errors become `internal`. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const e = error as Partial<FastifyError> & {
    validation?: { instancePath?: string; message?: string; params?: Record<string, unknown> }[];
  };
  if (Array.isArray(e.validation)) {
    // A path parameter that does not fit its schema (an id past what its column holds, a code of the wrong shape)
    // names no item: the address has nothing at it, like any unknown one.
    if (e.validationContext === "params") return new AppError("not_found", "There is nothing at this address.");
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
    case "FST_FIELDS_LIMIT":
    case "FST_PARTS_LIMIT":
      return new AppError("payload_too_large", "The request is too large.");
    case "FST_ERR_BAD_URL":
      return new AppError("bad_request", "The address is not valid: it holds a broken %-encoding.");
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new AppError("uri_too_long", "The address is too long.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("unsupported_media_type", "This content type is not accepted here.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
    case "FST_MP_PREMATURE_CLOSE":
    case "FST_PROTO_VIOLATION":
    case "FST_INVALID_JSON_FIELD_ERROR":
      return unreadableBody(error);
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
  const { notFound: NotFoundContent, serverError: ServerErrorContent } = request.server.civic.errorPages;
  if (err.code === "not_found" || err.code === "gone") {
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Page not found">
        <NotFoundContent
          site={ctx.site}
          more={notFoundBlocks(request.server.civic.features).map((b, i) => (
            <Fragment key={i}>{b.render()}</Fragment>
          ))}
        />
      </Layout>,
      err.status,
    );
  }
  if (
    (err.code === "service_unavailable" && err.headers["retry-after"]) ||
    err.code === "bad_gateway" ||
    err.code === "gateway_timeout"
  ) {
    // Busy (every upload or export slot taken), or another server we depend on failing, not broken: say so.
    return sendPage(
      reply,
      <Layout ctx={ctx} title="Please try again soon">
        <h1>Please try again soon</h1>
        <p>{err.message}</p>
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

const SENDERS: Record<RouteFamily, (request: FastifyRequest, reply: FastifyReply, err: AppError) => FastifyReply> = {
  open311: sendOpen311Error,
  problem: sendProblem,
  html: sendHtmlError,
};

/**
 * Sends an AppError in a family's format: the family of the scope the route was registered in (each API family
 * registers its own handlers, see registerErrorHandling), or, where there is no route yet (errors before routing,
 * the root scope's mixed pages and resources), the family of the URL.
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: AppError,
  family: RouteFamily = routeFamily(request.url),
): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // The APIs allow any origin, errors included; the families' own hooks add their exposed headers, but errors
  // raised by the framework before routing (frameworkErrors) run no hooks.
  if (isApiPath(request.url)) reply.header("access-control-allow-origin", "*");
  return SENDERS[family](request, reply, err);
}

/**
 * The error handler and the not-found handler of a scope. The root scope (no `family`) answers in the URL's family;
 * an API family's encapsulated plugin passes its own, so its routes' errors, its hooks' errors and its unknown
 * paths are answered in its format whatever the URL looks like, and its routes carry the family in their config
 * (call this before adding the scope's routes). Never a stack trace in a response.
 */
export function registerErrorHandling(scope: FastifyInstance, family?: RouteFamily): void {
  // Every route of an API family's scope says so in its config (read by the form-token check and the session).
  if (family) scope.addHook("onRoute", (route) => void (route.config = { ...route.config, family }));
  scope.setErrorHandler((error, request, reply) => {
    if (error instanceof ReplayedResponse) return reply.code(error.status).headers(error.headers).send(error.body);
    const err = requestError(error, request);
    // A message may quote the request's link token (core/http/secret-paths.ts).
    if (err.status >= 500) request.log.error({ err: errorWithoutSecrets(request, error) }, "request failed");
    else request.log.info({ code: err.code, status: err.status }, withoutSecrets(request, err.message));
    return sendError(request, reply, err, family);
  });
  scope.setNotFoundHandler((request, reply) => {
    return sendError(request, reply, new AppError("not_found", "There is nothing at this address."), family);
  });
}

/**
 * Fastify's `frameworkErrors`: errors raised before routing (a broken %-encoding in the path, a path parameter past
 * maxParamLength) are answered in the family's format, like every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const err = toAppError(error);
  if (err.status >= 500) request.log.error({ err: error }, "request failed");
  sendError(request, reply, err);
}

const CLIENT_ERRORS: Record<string, { code: "request_timeout" | "header_fields_too_large"; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: "request_timeout", message: "The request took too long to arrive." },
  HPE_HEADER_OVERFLOW: {
    code: "header_fields_too_large",
    message: "The address or the headers of the request are too long.",
  },
};

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses before there is any request object (headers
 * or URL past the 16 KB header limit: 431; a request that never completes: 408; anything unparseable: 400). The
 * family is read from the request line, as far as it arrived, and the answer is in its format, with CORS on APIs.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed || !socket.writable) return;
  const known = CLIENT_ERRORS[error.code ?? ""];
  const err = new AppError(known?.code ?? "bad_request", known?.message ?? "The request could not be read.");
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : Buffer.alloc(0);
  const requestLine = raw.subarray(0, 8192).toString("latin1").split("\r\n")[0] ?? "";
  const url = /^[A-Z]+ (\/\S*)/.exec(requestLine)?.[1] ?? "/";
  const path = url.split("?")[0] ?? "/";
  const family = routeFamily(url);
  let type: string;
  let body: string;
  if (family === "open311" && path.endsWith(".xml")) {
    type = "text/xml; charset=utf-8";
    body = `<?xml version="1.0" encoding="utf-8"?><errors><error><code>${err.status}</code><description>${escapeXml(err.message)}</description></error></errors>`;
  } else if (family === "open311") {
    type = "application/json; charset=utf-8";
    body = JSON.stringify([{ code: err.status, description: err.message }]);
  } else if (family === "problem") {
    type = "application/problem+json; charset=utf-8";
    body = JSON.stringify({
      type: "about:blank",
      title: err.title,
      status: err.status,
      detail: err.message,
      code: err.code,
    });
  } else {
    type = "text/html; charset=utf-8";
    body = `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>${err.title}</title></head><body><main><h1>Sorry, there is a problem with your request</h1><p>${err.message}</p><p>Return to the <a href="/">home page</a>.</p></main></body></html>`;
  }
  const cors = isApiPath(url) ? "Access-Control-Allow-Origin: *\r\n" : "";
  socket.end(
    `HTTP/1.1 ${err.status} ${err.title}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${cors}Connection: close\r\n\r\n${body}`,
  );
}
