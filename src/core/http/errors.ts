/**
 * The error catalogue: every error the platform answers with has a stable code, an HTTP status and a safe
 * message. Clients match on `code`, never on the message text.
 */
export const errorCatalogue = {
  bad_request: { status: 400, title: "Bad Request" },
  validation_failed: { status: 400, title: "Bad Request" },
  api_key_required: { status: 403, title: "Forbidden" },
  api_key_invalid: { status: 403, title: "Forbidden" },
  csrf_failed: { status: 403, title: "Forbidden" },
  /** Signed in, but the account's role does not allow this (staff pages for residents, admin pages for moderators). */
  forbidden: { status: 403, title: "Forbidden" },
  not_found: { status: 404, title: "Not Found" },
  method_not_allowed: { status: 405, title: "Method Not Allowed" },
  idempotency_key_missing: { status: 400, title: "Bad Request" },
  idempotency_key_in_use: { status: 409, title: "Conflict" },
  idempotency_key_reused: { status: 422, title: "Unprocessable Content" },
  /** An offline draft saved in another session (another account, or signed in or out) than the one sending it. */
  draft_owner_mismatch: { status: 409, title: "Conflict" },
  not_acceptable: { status: 406, title: "Not Acceptable" },
  request_timeout: { status: 408, title: "Request Timeout" },
  gone: { status: 410, title: "Gone" },
  payload_too_large: { status: 413, title: "Content Too Large" },
  uri_too_long: { status: 414, title: "URI Too Long" },
  unsupported_media_type: { status: 415, title: "Unsupported Media Type" },
  rate_limited: { status: 429, title: "Too Many Requests" },
  header_fields_too_large: { status: 431, title: "Request Header Fields Too Large" },
  internal: { status: 500, title: "Internal Server Error" },
  /** Another server the answer depends on (a map tile server) answered with an error or something unusable. */
  bad_gateway: { status: 502, title: "Bad Gateway" },
  service_unavailable: { status: 503, title: "Service Unavailable" },
  /** Another server the answer depends on did not answer in time. */
  gateway_timeout: { status: 504, title: "Gateway Timeout" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** A problem with one input field, named as the client sent it. */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  fields?: FieldProblem[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error that is safe to show: its message is written for the person or program that made the request. */
export class AppError extends Error {
  readonly status: number;
  readonly fields: FieldProblem[];
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.status = errorCatalogue[code].status;
    this.fields = options.fields ?? [];
    this.headers = options.headers ?? {};
  }

  get title(): string {
    return errorCatalogue[this.code].title;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export const notFound = (what = "The page or resource you asked for does not exist.") =>
  new AppError("not_found", what);

/** The answer to a body that could not be parsed (malformed, truncated or of a broken multipart shape). */
export function unreadableBody(cause?: unknown): AppError {
  return new AppError("bad_request", "The request body could not be read.", { cause });
}

/**
 * The stored answer to a repeated request, thrown where the route's work would otherwise run; the error handler
 * sends it as it was first sent.
 */
export class ReplayedResponse extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super("replayed response");
    this.name = "ReplayedResponse";
  }
}

/** Which API family a route (or, before routing, a URL) belongs to; errors are answered in that family's format. */
export type RouteFamily = "open311" | "problem" | "html";
