import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { registerErrorHandling } from "../core/http/error-handler.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../core/http/errors.js";
import { idempotencyHooks } from "../core/http/idempotency.js";
import { discoveryDocument } from "./discovery.js";
import { type ApiClient, ApiKeyTouches, findActiveApiKey, requestApiKey } from "./keys.js";
import { withUploads } from "../core/media/uploads.js";
import {
  createServiceRequest,
  isAcceptedPostType,
  isMediaField,
  POST_CONTENT_TYPES,
  type PostFields,
  readPostBody,
} from "./post.js";
import { parseRequestsQuery, type RequestFilter, referenceCandidates } from "./query.js";
import { findServiceRequest, findServiceRequests, knownServiceCodes } from "./requests.js";
import {
  CreatedRequests,
  Discovery,
  errorResponses,
  type Format,
  FormatParams,
  IdempotencyKeyHeaders,
  jsonOrXml,
  postBodySchemas,
  rawJsonSerializer,
  ReadQuery,
  RequestIdParams,
  readResponses,
  RequestsQuery,
  ServiceCodeParams,
  ServiceDefinition,
  ServiceRequests,
  Services,
  TAG,
  TokenParams,
  TokenResponse,
} from "./schemas.js";
import { publicCategories, publicCategory, toService, toServiceDefinition } from "./services.js";
import { CatalogueCache } from "../catalogue/index.js";
import { contentEtag, notModified } from "../core/http/conditional.js";
import { type SparkValue, toOpen311Xml } from "./xml.js";
import { AnswerCache, type CachedAnswer } from "./answer-cache.js";
import { publicReadVersion, reportResource } from "../reports/index.js";
import { requestClient } from "../core/http/client-address.js";

const READ_CACHE = "public, max-age=60";
const SERVICES_CACHE = "public, max-age=300";
/**
 * Services and service definitions change when an admin edits a category, and must show it at once: caches keep
 * them but ask every time (ETag from the catalogue version, so the answer to a repeat is a quick 304).
 */
const CATALOGUE_CACHE = "public, no-cache";
/** So browser clients can read an answer's entity tag (to send it back in If-None-Match), their rate-limit state and when to retry. */
const EXPOSED_HEADERS = "ETag, Last-Modified, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After";

/**
 * Sends an Open311 body as JSON or as XML with the standard's root element. JSON is stringified here rather than
 * by the response schema's serialiser: the bodies are built field by field by the presenters (the privacy rule
 * lives there), and fast-json-stringify's per-value `anyOf` checks for nullable fields cost ~25 ms on a page of
 * 1,000 requests. The response schemas still document the shape and the tests validate every body against them.
 */
function serialise(format: Format, root: string, body: SparkValue): { payload: Buffer | string; contentType: string } {
  const text = format === "xml" ? toOpen311Xml(root, body) : JSON.stringify(body);
  // A large answer (a page of 1,000 requests is ~550 KB) is encoded to UTF-8 once, here: given a string, Fastify
  // measures its byte length and the socket encodes it again. Small ones (POST answers, which the idempotency
  // store records as text) stay strings.
  return {
    payload: text.length > LARGE_ANSWER ? Buffer.from(text) : text,
    contentType: format === "xml" ? "text/xml; charset=utf-8" : "application/json; charset=utf-8",
  };
}

function sendFormat(reply: FastifyReply, format: Format, root: string, body: SparkValue) {
  const { payload, contentType } = serialise(format, root, body);
  return reply.type(contentType).send(payload);
}

/**
 * How long a kept search answer is served while no data changes, ms. Only answers without dates depend on the
 * clock (the last 90 days, counted from now); this bounds how far their window's start lags behind, well inside
 * the minute that READ_CACHE already lets any cache keep an answer.
 */
const ANSWER_FRESH_MS = 10_000;

/**
 * The cache key of a search: the format and the normalised filter, with the window written as "the last 90 days"
 * when no date was given (its ends move with the clock; freshness bounds that).
 */
function answerKey(format: Format, filter: Extract<RequestFilter, { kind: "search" }>, query: RequestsQuery): string {
  const dated = query.start_date !== undefined || query.end_date !== undefined;
  const window = dated ? `${filter.from}/${filter.to}` : "recent";
  const near = filter.near ? `${filter.near.lat},${filter.near.lng},${filter.near.radiusM}` : "";
  return `${format}|${window}|${filter.serviceCodes?.join(",") ?? ""}|${filter.statuses?.join(",") ?? ""}|${near}|${filter.limit}|${filter.offset}`;
}

/**
 * A kept or new answer, with its entity tag: a repeat that sends it back in If-None-Match gets a 304. An answer
 * about one item also carries `Last-Modified` (the item's own change time) and honours If-Modified-Since as RFC 9110
 * says (core/http/conditional.ts).
 */
function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: Omit<CachedAnswer, "builtAt">,
  lastModified?: Date,
) {
  reply.header("etag", answer.etag);
  if (lastModified) reply.header("last-modified", lastModified.toUTCString());
  if (notModified(request.headers, { etag: answer.etag, lastModified })) return reply.code(304).send();
  return reply.type(answer.contentType).send(answer.payload);
}

/** A read's answer, with a strong entity tag from its bytes (304 for a repeat that sends it in If-None-Match). */
function sendRead(
  request: FastifyRequest,
  reply: FastifyReply,
  format: Format,
  root: string,
  body: SparkValue,
  lastModified?: Date,
) {
  const { payload, contentType } = serialise(format, root, body);
  return sendAnswer(request, reply, { payload, contentType, etag: contentEtag(payload) }, lastModified);
}

/** Characters past which an answer is sent as an encoded Buffer. */
const LARGE_ANSWER = 16_384;

/**
 * A response to a request that carried an API key (header, query or form body) is the client's own: `private`, so
 * no shared cache keeps it (or its URL with the key). Every answer varies on X-Api-Key, so a cache never hands an
 * anonymous answer (and its rate-limit headers) to a keyed request or the other way round.
 */
function privateWhenKeyed(request: FastifyRequest, reply: FastifyReply): void {
  const vary = reply.getHeader("vary");
  reply.header("vary", vary === undefined || vary === "" ? "X-Api-Key" : `${String(vary)}, X-Api-Key`);
  const keyed =
    requestApiKey(request) !== undefined ||
    (request.method === "POST" &&
      typeof request.body === "object" &&
      request.body !== null &&
      "api_key" in request.body);
  if (!keyed) return;
  const cache = reply.getHeader("cache-control");
  if (typeof cache === "string" && cache.startsWith("public"))
    reply.header("cache-control", `private${cache.slice(6)}`);
}

/**
 * The Open311 GeoReport v2 API under /api/v2: discovery, services, service definitions, requests (GET and POST)
 * and tokens, each as .json and .xml. Reads need no key and allow any origin; POST needs an API key. Every route is
 * rate-limited per API key when a valid one is given, otherwise per client address.
 */
export async function open311Routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  // Registered under /api/v2 (see manifest.ts), encapsulated: its hooks and its error format are the family's own,
  // unknown /api/v2 paths included.
  registerErrorHandling(app, "open311");
  const civic = app.civic;
  const db = () => civic.database.db;
  const { readMax, writeMax, windowMs } = civic.config.rateLimit;
  const postSchemas = postBodySchemas(civic.config.village.bounds, new URL(civic.config.baseUrl).hostname);
  const presenter = { baseUrl: civic.config.baseUrl, villageName: civic.config.village.name };
  const answers = new AnswerCache({ maxBytes: civic.config.open311CacheBytes, freshMs: ANSWER_FRESH_MS });

  // Open CORS for the whole API family, errors and unknown /api/v2 paths included: no cookie or ambient
  // credential is ever used here (POST authenticates with api_key in the body).
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("access-control-allow-origin", "*");
    reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    privateWhenKeyed(request, reply);
    done(null, payload);
  });

  const clients = new WeakMap<FastifyRequest, ApiClient>();
  const bucket = (kind: string) => (request: FastifyRequest) => {
    const client = clients.get(request);
    return client ? `${kind}:key:${client.id}` : `${kind}:addr:${requestClient(request)}`;
  };
  const readLimiter = app.createRateLimit({ max: readMax, timeWindow: windowMs, keyGenerator: bucket("read") });
  const writeLimiter = app.createRateLimit({ max: writeMax, timeWindow: windowMs, keyGenerator: bucket("write") });

  const limit = (limiter: typeof readLimiter) => async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await limiter(request);
    if (result.isAllowed) return;
    const headers = {
      "ratelimit-limit": String(result.max),
      "ratelimit-remaining": String(result.remaining),
      "ratelimit-reset": String(result.ttlInSeconds),
    };
    reply.headers(headers);
    if (result.isExceeded) {
      throw new AppError("rate_limited", `Too many requests. Please try again in ${result.ttlInSeconds} seconds.`, {
        headers: { ...headers, "retry-after": String(result.ttlInSeconds) },
      });
    }
  };

  /** A read may carry a key (for its own rate limit); an unknown or revoked one is ignored, not refused. */
  const readClient = async (request: FastifyRequest) => {
    const key = requestApiKey(request);
    if (key !== undefined) {
      const client = await findActiveApiKey(db(), key);
      if (client) clients.set(request, client);
    }
  };
  // Prepared bodies of the services list and definitions, valid for one catalogue version (see catalogue/version.ts).
  const catalogue = new CatalogueCache(db);
  const sendCatalogue = async (
    request: FastifyRequest,
    reply: FastifyReply,
    format: Format,
    root: string,
    key: string,
    build: (d: ReturnType<typeof db>) => Promise<SparkValue>,
    lastModifiedToo = false,
  ) => {
    const { value, version, changedAt } = await catalogue.get(`${key}.${format}`, async (d) => {
      const body = await build(d);
      return format === "xml" ? toOpen311Xml(root, body) : JSON.stringify(body);
    });
    const etag = `"catalogue-${version}-${format}"`;
    reply.header("cache-control", CATALOGUE_CACHE).header("etag", etag);
    // One service's definition: Last-Modified is the catalogue's last change (catalogue/version.ts), the newest
    // change that can touch it, as categories keep no change time of their own.
    const lastModified = lastModifiedToo ? changedAt : undefined;
    if (lastModified) reply.header("last-modified", lastModified.toUTCString());
    if (notModified(request.headers, { etag, lastModified })) return reply.code(304).send();
    return reply.type(format === "xml" ? "text/xml; charset=utf-8" : "application/json; charset=utf-8").send(value);
  };

  /** Before validation, so that an unknown format gets its own message (the routes it runs for end in `.:format`). */
  const checkFormat = async ({ params }: FastifyRequest) => {
    const format = typeof params === "object" && params !== null && "format" in params ? params.format : undefined;
    if (format !== "json" && format !== "xml") {
      throw new AppError("not_found", "Unknown format: add .json or .xml to the address.");
    }
  };
  const readHooks = {
    onRequest: checkFormat,
    preHandler: [readClient, limit(readLimiter)],
    serializerCompiler: rawJsonSerializer,
  };

  app.get(
    "/discovery.:format",
    {
      ...readHooks,
      schema: {
        summary: "Service discovery",
        description:
          "The Open311 service discovery document: contact, how to get an API key, and the GeoReport v2 endpoint with its formats.",
        tags: [TAG],
        params: FormatParams,
        querystring: ReadQuery,
        response: {
          ...readResponses("The discovery document (root element `discovery`).", Discovery, SERVICES_CACHE),
          ...errorResponses(404, 429),
        },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", SERVICES_CACHE);
      return sendRead(request, reply, request.params.format, "discovery", discoveryDocument(civic));
    },
  );

  app.get(
    "/services.:format",
    {
      ...readHooks,
      schema: {
        summary: "List services",
        description:
          "Every public report category that takes new reports as an Open311 service; a retired category is absent (its reports keep their `service_code`, and POSTing a request for it is a 400). `metadata` is true when the category asks extra questions (read its service definition). All services are `realtime`. Changes made by the council's administrators show at once: the response is `Cache-Control: no-cache` with an `ETag`, so send `If-None-Match` for a quick 304.",
        tags: [TAG],
        params: FormatParams,
        querystring: ReadQuery,
        response: {
          ...readResponses("The services (root `services`, items `service`).", Services, CATALOGUE_CACHE),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request, reply) =>
      sendCatalogue(request, reply, request.params.format, "services", "services", async (d) =>
        (await publicCategories(d)).map(toService),
      ),
  );

  app.get(
    "/services/:service_code.:format",
    {
      ...readHooks,
      schema: {
        summary: "Service definition",
        description:
          "The extra questions (attributes) of one service: datatype (string, number, datetime, text, singlevaluelist, multivaluelist), variable, required, order, description and list values. 404 for an unknown or retired service_code. Like the services list, `no-cache` with an `ETag` (304 on `If-None-Match`): edits to the questions show at once. `Last-Modified` is the catalogue's last change (304 on `If-Modified-Since` when no `If-None-Match` is sent).",
        tags: [TAG],
        params: ServiceCodeParams,
        querystring: ReadQuery,
        response: {
          ...readResponses(
            "The definition (root `service_definition`, lists `attributes/attribute` and `values/value`).",
            ServiceDefinition,
            CATALOGUE_CACHE,
            "When the catalogue (any service or department) last changed: services keep no change time of their own",
          ),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const code = request.params.service_code;
      return sendCatalogue(
        request,
        reply,
        request.params.format,
        "service_definition",
        `service:${code}`,
        async (d) => toServiceDefinition(await publicCategory(d, code)),
        true,
      );
    },
  );

  app.get(
    "/requests.:format",
    {
      ...readHooks,
      schema: {
        summary: "Query service requests",
        description:
          "Public reports, newest first. `service_request_id` (comma list) overrides every other filter (the others are still checked: a malformed one is a 400). Without dates the window is the last 90 days; a window longer than 90 days is a 400. At most 1,000 per response; `page`/`page_size` paginate; `lat`/`long`/`radius` (metres, default 500) find reports near a place. Internal statuses map to open/closed, with the detail in status_notes. Searches carry a strong `ETag` (send `If-None-Match` for a 304); any change to the public data shows at the next request, although the answer may be kept by caches for `max-age=60`.",
        tags: [TAG],
        params: FormatParams,
        querystring: RequestsQuery,
        response: {
          ...readResponses(
            "The matching requests (root `service_requests`, items `request`).",
            ServiceRequests,
            READ_CACHE,
          ),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const now = civic.now();
      const filter = parseRequestsQuery(request.query, now);
      const format = request.params.format;
      // Searches are answered from this process's answer cache while the public data is unchanged (service ids
      // are not: their keys are long and each answer small). The version is read before anything else.
      const key = filter.kind === "search" ? answerKey(format, filter, request.query) : null;
      const version = key && answers.enabled ? await publicReadVersion(db()) : 0;
      const kept = key ? answers.get(key, version, now.getTime()) : undefined;
      reply.header("cache-control", READ_CACHE);
      if (kept) return sendAnswer(request, reply, kept);
      if (filter.kind === "search" && filter.serviceCodes) {
        const known = await knownServiceCodes(db(), filter.serviceCodes);
        const unknown = filter.serviceCodes.filter((c) => !known.has(c));
        if (unknown.length > 0) {
          throw new AppError("not_found", `service_code ${unknown.map((c) => `"${c}"`).join(", ")} was not found.`);
        }
      }
      const requests = await findServiceRequests(db(), filter, presenter);
      if (!key) return sendRead(request, reply, format, "service_requests", requests);
      const { payload, contentType } = serialise(format, "service_requests", requests);
      const answer = { payload, contentType, etag: contentEtag(payload), builtAt: now.getTime() };
      answers.set(key, version, answer);
      return sendAnswer(request, reply, answer);
    },
  );

  app.get(
    "/requests/:service_request_id.:format",
    {
      ...readHooks,
      schema: {
        summary: "One service request",
        description:
          "One public report by its reference number, as a one-element list. 404 when there is no such public report. Carries a strong `ETag` (send `If-None-Match` for a 304) and `Last-Modified`, the report's last change (`If-Modified-Since` gives a 304 when no `If-None-Match` is sent).",
        tags: [TAG],
        params: RequestIdParams,
        querystring: ReadQuery,
        response: {
          ...readResponses(
            "A list with the one request (root `service_requests`).",
            ServiceRequests,
            READ_CACHE,
            "The request's last change (its `updated_datetime`)",
          ),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const found = await findServiceRequest(db(), request.params.service_request_id, presenter);
      reply.header("cache-control", READ_CACHE);
      const lastModified = found.updated_datetime ? new Date(found.updated_datetime) : undefined;
      return sendRead(request, reply, request.params.format, "service_requests", [found], lastModified);
    },
  );

  app.get(
    "/tokens/:token.:format",
    {
      ...readHooks,
      schema: {
        summary: "service_request_id from a token",
        description:
          "Every service here is realtime: POST answers with the service_request_id at once and never issues a token. For clients that always ask, a token maps to itself: the reference number of a public report answers with that report's id; anything else is a 404.",
        tags: [TAG],
        params: TokenParams,
        querystring: ReadQuery,
        response: {
          ...readResponses(
            "The token and its service_request_id (root `service_requests`).",
            TokenResponse,
            READ_CACHE,
          ),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const [found] = await findServiceRequests(
        db(),
        { kind: "ids", references: referenceCandidates(request.params.token) },
        presenter,
      );
      if (!found) {
        throw new AppError(
          "not_found",
          `Token "${request.params.token}" was not found. This server is realtime and issues no tokens: POST requests answers with the service_request_id directly.`,
        );
      }
      reply.header("cache-control", READ_CACHE);
      return sendRead(request, reply, request.params.format, "service_requests", [
        { service_request_id: found.service_request_id, token: request.params.token },
      ]);
    },
  );

  /** POST: resolve the key, count the attempt (per key, or per address without a valid key), then require it. */
  const postBodies = new WeakMap<FastifyRequest, PostFields>();
  const keyTouches = new ApiKeyTouches();
  const writeClient = async (request: FastifyRequest) => {
    const body = readPostBody(request.body);
    // The standard sends api_key in the form body; clients may send the X-Api-Key header or the query instead.
    const elsewhere = requestApiKey(request);
    if (!body.fields.has("api_key") && elsewhere !== undefined) body.fields.set("api_key", [elsewhere]);
    const keys = body.fields.get("api_key") ?? [];
    const key = keys.length === 1 ? keys[0]?.trim() : undefined;
    if (key) {
      const client = await findActiveApiKey(db(), key);
      if (client) clients.set(request, client);
    }
    postBodies.set(request, body);
  };
  const requireKey = async (request: FastifyRequest) => {
    if (clients.has(request)) return;
    const given = postBodies.get(request)?.fields.get("api_key")?.[0]?.trim();
    throw given
      ? new AppError("api_key_invalid", "Invalid api_key received: it is unknown or has been revoked.")
      : new AppError("api_key_required", "api_key was not provided: submitting a request needs an API key.");
  };

  /**
   * POST's Idempotency-Key: each API key has its own keys, looked at only once the key was checked (the claim runs
   * last in preHandler, after requireKey); the format is part of the request (the stored answer is JSON or XML).
   */
  const createdReports = new WeakMap<FastifyRequest, string>();
  const open311Idempotency = idempotencyHooks({
    scope: "open311",
    client: (request) => {
      const client = clients.get(request);
      return client ? `key:${client.id}` : null;
    },
    resource: (request) => {
      const reference = createdReports.get(request);
      return reference ? reportResource(reference) : null;
    },
    completes: (status) => status === 200,
    includePath: true,
  });

  /** Before the body is parsed: only the two content types of the standard are read (415 otherwise). */
  const checkPostType = async (request: FastifyRequest) => {
    if (!isAcceptedPostType(request.headers["content-type"])) {
      throw new AppError("unsupported_media_type", `Send the request as ${POST_CONTENT_TYPES.join(" or ")}.`);
    }
  };

  app.post(
    "/requests.:format",
    {
      onRequest: [checkFormat, checkPostType],
      preHandler: [writeClient, limit(writeLimiter), requireKey, open311Idempotency.claim],
      onSend: open311Idempotency.onSend,
      attachValidation: true,
      serializerCompiler: rawJsonSerializer,
      config: { csrf: false },
      schema: {
        security: [{ open311ApiKeyHeader: [] }, { open311ApiKey: [] }],
        summary: "Create a service request",
        description:
          "Submit a report. Form-encoded (application/x-www-form-urlencoded) as the standard says, or multipart/form-data with photos in `media` (v2.1 draft); any other content type (JSON included) is a 415. Both are checked the same way: every field has the length limit given below (400 naming each field over it), attribute codes at most 100 characters and answers at most 2,000. Needs `api_key` (403 when missing or wrong), `service_code` (404 when unknown), a location (`lat`+`long` inside the village area, `address_string`, or `address_id` = a gazetteer place id; any other address_id is not a location and is neither stored nor published) and a `description` (plain text, at most 4,000 characters). `attribute[CODE]` answers are checked against the service definition. The reporter's contact details are never published; with an email they get the same confirmation email as on the website, within the same caps (at most 3 confirmations an hour and 10 a day to one mailbox, across every feature; beyond them the report is still created and the answer is the same, but no email is sent).\n\nUploads: send `api_key` (or give it in the query string) before the first `media` part. The key and the rate limit are checked before any file is read: a `media` part that arrives while no valid key is known is refused with 403 without being stored, and the connection is closed (at most 4 MB of the rest is read and dropped, so the answer reaches the client). Files stream to a temporary store, at most MAX_PHOTOS files of MAX_PHOTO_MB each (413 beyond); while too many uploads are in progress the answer is 503 with `Retry-After`. An upload must keep arriving at UPLOAD_MIN_BYTES_PER_SECOND (1 KB/s by default, over every 10 s): a slower one is answered 408, nothing of it is kept and the connection is closed.",
        tags: [TAG],
        params: FormatParams,
        headers: IdempotencyKeyHeaders,
        body: {
          content: {
            "application/x-www-form-urlencoded": { schema: postSchemas.form },
            "multipart/form-data": { schema: postSchemas.multipart },
          },
        },
        response: {
          200: jsonOrXml(
            "The new request's id (its reference number) and a service notice (root `service_requests`).",
            CreatedRequests,
          ),
          ...errorResponses(400, 403, 404, 408, 409, 413, 415, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const client = clients.get(request);
      const body = postBodies.get(request);
      if (!client || !body) throw new AppError("api_key_required", "api_key was not provided.");
      // Fastify's schema check is attached, not thrown: both content types are checked on the normalised fields
      // instead (createServiceRequest → checkPostFields), the same way. Files are read only now, after the key and
      // the rate limit were checked (see core/media/uploads.ts); the body is read again for the fields after them.
      const created = await withUploads(request, isMediaField, (files) =>
        createServiceRequest(civic, client, readPostBody(request.body, files)),
      );
      createdReports.set(request, created.service_request_id);
      await keyTouches.touch(db(), client.id, civic.now());
      reply.header("cache-control", "no-store");
      return sendFormat(reply, request.params.format, "service_requests", [created]);
    },
  );

  // CORS preflight for the whole family: conditional reads (If-None-Match, If-Modified-Since) included.
  app.options("/*", { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .code(204)
      .header("access-control-allow-origin", "*")
      .header("access-control-allow-methods", "GET, HEAD, POST, OPTIONS")
      .header(
        "access-control-allow-headers",
        "Content-Type, X-Api-Key, Idempotency-Key, If-None-Match, If-Modified-Since",
      )
      .header("access-control-max-age", "86400")
      .send();
  });
}
