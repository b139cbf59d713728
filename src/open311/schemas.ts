import { type Static, type TSchema, Type } from "typebox";
import type { Bounds } from "../config.js";
import { IDEMPOTENCY_KEY_PATTERN } from "../core/http/idempotency.js";
import { DOCUMENTED_PATTERN } from "../core/http/input.js";
import { MEDIA_URL_MAX, mediaUrlPattern, NOT_BLANK, REPORT_PATTERNS, togetherRule } from "../reports/index.js";

/**
 * TypeBox schemas of the Open311 GeoReport v2 API: one source for validation, serialisation (JSON responses are
 * serialised through them, so a field that is not listed here never leaves the server) and the OpenAPI document.
 * Field names and shapes follow the standard (https://wiki.open311.org/GeoReport_v2/) and the public Open311 JSON
 * Schemas; every id and code is a string and every datetime carries a timezone.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const TAG = "Open311";

export const Format = Type.Union([Type.Literal("json"), Type.Literal("xml")], {
  description: "Response format: `json` (application/json) or `xml` (text/xml), as the file extension.",
});
export type Format = Static<typeof Format>;

export const FormatParams = Type.Object({ format: Format });

const JurisdictionId = Type.Optional(
  Type.String({
    maxLength: 200,
    description: "Accepted and ignored: this endpoint serves one jurisdiction (the standard allows ignoring it).",
  }),
);

export const ReadQuery = Type.Object(
  {
    jurisdiction_id: JurisdictionId,
    api_key: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          "Optional on reads. A valid key is rate-limited per key instead of per client address. Prefer the `X-Api-Key` header: a key in the URL ends up in logs and caches (the answer is then `Cache-Control: private`).",
      }),
    ),
  },
  { additionalProperties: true },
);

// --- Errors --------------------------------------------------------------------------------------------------

export const Open311Error = Type.Object({
  code: Type.Integer({ description: "The HTTP status code of the response." }),
  description: Type.String({ description: "What went wrong, for the person using the client." }),
});
export const Open311Errors = Type.Array(Open311Error, {
  description: "The standard's error list. In XML: `<errors><error><code/><description/></error></errors>`.",
});

// --- Discovery -----------------------------------------------------------------------------------------------

export const DiscoveryEndpoint = Type.Object({
  specification: Type.String({ description: "Always http://wiki.open311.org/GeoReport_v2" }),
  url: Type.String({ format: "uri", description: "Base URL of the GeoReport v2 endpoint (/api/v2)." }),
  changeset: Type.String({ description: "When the services or their definitions last changed (sortable)." }),
  type: Type.Union([Type.Literal("production"), Type.Literal("test")]),
  formats: Type.Array(Type.String(), { description: "Supported MIME types: text/xml and application/json." }),
});

export const Discovery = Type.Object({
  changeset: Type.String({ description: "When this document last changed (sortable)." }),
  contact: Type.String(),
  key_service: Type.String({ description: "How to get an API key (needed for POST requests only)." }),
  endpoints: Type.Array(DiscoveryEndpoint),
});
export type Discovery = Static<typeof Discovery>;

// --- Services ------------------------------------------------------------------------------------------------

export const Service = Type.Object({
  service_code: Type.String({ description: "Unique identifier of the service (report category)." }),
  service_name: Type.String(),
  description: Nullable(Type.String()),
  metadata: Type.Boolean({ description: "true when the service asks extra questions: read its definition." }),
  type: Type.Union([Type.Literal("realtime"), Type.Literal("batch"), Type.Literal("blackbox")], {
    description: "Always `realtime`: a POST answers with the service_request_id at once.",
  }),
  keywords: Nullable(Type.String({ description: "Comma-separated keywords." })),
  group: Nullable(Type.String()),
});
export type Service = Static<typeof Service>;
export const Services = Type.Array(Service);

export const AttributeValue = Type.Object({
  key: Type.String(),
  name: Type.String(),
});

export const ServiceAttribute = Type.Object({
  variable: Type.Boolean({ description: "false: information only, shown to the user, takes no answer." }),
  code: Type.String(),
  datatype: Type.Union([
    Type.Literal("string"),
    Type.Literal("number"),
    Type.Literal("datetime"),
    Type.Literal("text"),
    Type.Literal("singlevaluelist"),
    Type.Literal("multivaluelist"),
  ]),
  required: Type.Boolean(),
  datatype_description: Nullable(Type.String()),
  order: Type.Integer({ minimum: 1 }),
  description: Type.String(),
  values: Type.Optional(Type.Array(AttributeValue, { description: "Only for singlevaluelist and multivaluelist." })),
});

export const ServiceDefinition = Type.Object({
  service_code: Type.String(),
  attributes: Type.Array(ServiceAttribute),
});
export type ServiceDefinition = Static<typeof ServiceDefinition>;

export const ServiceCodeParams = Type.Object({
  service_code: Type.String({ minLength: 1, maxLength: 100, description: "A service_code from the service list." }),
  format: Format,
});

/** Most ids in a `service_request_id` list, and service codes in a `service_code` list. */
export const MAX_IDS = 1000;
export const MAX_CODES = 100;

/** A comma list of at most `max` items of text without control characters. */
function commaListPattern(max: number): string {
  const item = "[^,\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*";
  return `^${item}(?:,${item}){0,${max - 1}}$`;
}

/**
 * A real calendar date (29 February aside, which the pattern leaves out) and optionally a time with its timezone
 * (Z or ±hh:mm), as `start_date` and `end_date` take them; the years 1000 to 9899, away from the ends of the
 * storable range (0001–9999) that a timezone could cross.
 */
const W3C_DATETIME_PATTERN =
  "^(?:1[0-9]{3}|[2-8][0-9]{3}|9[0-8][0-9]{2})-" +
  "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))" +
  "(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?(?:Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9]))?$";

// --- Service requests ----------------------------------------------------------------------------------------

export const ServiceRequest = Type.Object({
  service_request_id: Type.String({ description: "The report's reference number." }),
  status: Type.Union([Type.Literal("open"), Type.Literal("closed")]),
  status_notes: Nullable(
    Type.String({
      description:
        "The note of the latest public update by staff or the council (never a resident's); null (an empty element in XML) when there is none.",
    }),
  ),
  service_name: Nullable(Type.String()),
  service_code: Type.String(),
  description: Nullable(Type.String({ maxLength: 4000 })),
  agency_responsible: Nullable(Type.String()),
  service_notice: Nullable(Type.String()),
  requested_datetime: Type.String({ format: "date-time" }),
  updated_datetime: Nullable(Type.String({ format: "date-time" })),
  expected_datetime: Nullable(Type.String({ format: "date-time" })),
  address: Nullable(
    Type.String({
      description:
        'The address_string (or gazetteer place) the reporter gave; when none, the place in the gazetteer\'s words ("About 40 m from Bus stop outside the Post Office, near High Street"); null when no street or landmark is within 1 km.',
    }),
  ),
  address_id: Nullable(Type.String()),
  zipcode: Nullable(Type.String()),
  lat: Nullable(Type.Number()),
  long: Nullable(Type.Number()),
  media_url: Nullable(Type.String({ format: "uri", description: "Absolute URL of the first photo." })),
});
export type ServiceRequest = Static<typeof ServiceRequest>;
export const ServiceRequests = Type.Array(ServiceRequest);

export const RequestIdParams = Type.Object({
  service_request_id: Type.String({ minLength: 1, maxLength: 64, description: "The report's reference number." }),
  format: Format,
});

/** The query of GET requests; its patterns are checked by parseRequestsQuery (query.ts), with its own messages. */
export const RequestsQuery = Type.Object(
  {
    jurisdiction_id: JurisdictionId,
    api_key: Type.Optional(Type.String({ maxLength: 200 })),
    service_request_id: Type.Optional(
      Type.String({
        maxLength: 20_000,
        [DOCUMENTED_PATTERN]: commaListPattern(MAX_IDS),
        description: "Comma-separated reference numbers (at most 1,000). Overrides every other filter.",
      }),
    ),
    service_code: Type.Optional(
      Type.String({
        maxLength: 2000,
        [DOCUMENTED_PATTERN]: commaListPattern(MAX_CODES),
        description: "Comma-separated service codes (at most 100); an unknown one is a 404.",
      }),
    ),
    start_date: Type.Optional(
      Type.String({
        maxLength: 40,
        [DOCUMENTED_PATTERN]: W3C_DATETIME_PATTERN,
        description:
          "W3C datetime with a timezone (Z, ±hh:mm or ±hhmm, e.g. 2026-01-01T00:00:00Z or 2026-01-01T00:00:00-0500) or a date (midnight UTC). Alone: the window is start_date + 90 days.",
      }),
    ),
    end_date: Type.Optional(
      Type.String({
        maxLength: 40,
        [DOCUMENTED_PATTERN]: W3C_DATETIME_PATTERN,
        description:
          "W3C datetime with a timezone (Z, ±hh:mm or ±hhmm), or a date (end of that day, UTC). Alone: the 90 days before it. With start_date: not before it and at most 90 days after it (else 400).",
      }),
    ),
    status: Type.Optional(
      Type.String({
        maxLength: 20,
        [DOCUMENTED_PATTERN]: "^(?:open|closed|open,closed|closed,open)$",
        description: "`open`, `closed` or `open,closed`. Default: both.",
      }),
    ),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: "Pagination extension; from 1." })),
    page_size: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: "Pagination extension; default and maximum 1,000." }),
    ),
    lat: Type.Optional(
      Type.Number({ minimum: -90, maximum: 90, description: "Near-here extension: latitude (WGS84)." }),
    ),
    long: Type.Optional(
      Type.Number({ minimum: -180, maximum: 180, description: "Near-here extension: longitude (WGS84)." }),
    ),
    radius: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 20_000,
        description: "Near-here extension: radius in metres around lat/long (default 500).",
      }),
    ),
  },
  { additionalProperties: true },
);
export type RequestsQuery = Static<typeof RequestsQuery>;

export const CreatedRequest = Type.Object({
  service_request_id: Type.String({ description: "The new report's reference number." }),
  service_notice: Nullable(Type.String()),
  account_id: Nullable(
    Type.String({ description: "The account_id sent with the request, if any: your own identifier, echoed." }),
  ),
});
export const CreatedRequests = Type.Array(CreatedRequest);

const formField = (description: string, maxLength = 2000, pattern?: string) =>
  Type.Optional(Type.String({ maxLength, description, ...(pattern ? { pattern } : {}) }));

const postFields = {
  api_key: formField(
    "Your API key (403 when missing or wrong), unless you send it in the `X-Api-Key` header (preferred); also accepted in the query string.",
  ),
  jurisdiction_id: formField("Accepted and ignored."),
  service_code: Type.String({
    maxLength: 2000,
    pattern: REPORT_PATTERNS.requiredText,
    description: "Required: a service_code from the service list (404 when unknown).",
  }),
  lat: formField("Latitude (WGS84). With long; inside the village area."),
  long: formField("Longitude (WGS84). With lat; inside the village area."),
  address_string: formField(
    "Address or description of the place (plain text); needed when lat/long are not given.",
    300,
    REPORT_PATTERNS.plainText,
  ),
  address_id: formField(
    "A gazetteer place id; accepted as a location when lat/long are not given. Published only when it is a known place id.",
    200,
  ),
  email: formField(
    "Reporter's email: gets the confirmation email. Never published. Its holder can download or erase everything held under it (this name and phone too) on /my-data; erased data is also erased from the mail queue and the database files.",
    254,
    REPORT_PATTERNS.email,
  ),
  device_id: formField("Never published.", 200),
  account_id: formField(
    "Your system's own identifier of the person (GeoReport v2): echoed in the POST answer, never stored or published, and never taken as an account of this platform (the report is not added to any account's reports).",
    200,
  ),
  first_name: formField(
    "Never published. Plain text; with last_name it makes the reporter's name (at most 100 characters).",
    49,
    REPORT_PATTERNS.plainText,
  ),
  last_name: formField("Never published. Plain text.", 49, REPORT_PATTERNS.plainText),
  phone: formField(
    "Never published. Digits, spaces, brackets and dashes, an optional leading +.",
    40,
    REPORT_PATTERNS.phone,
  ),
  description: Type.String({
    maxLength: 4000,
    pattern: REPORT_PATTERNS.requiredText,
    description: "Required: plain text, at most 4,000 characters, no HTML.",
  }),
  media_url: mediaUrlField("example.org"),
};

/**
 * media_url: a link to media elsewhere, never fetched (reports/media-url.ts); `ownHost` is this site's host name,
 * which it may not point at.
 */
function mediaUrlField(ownHost: string) {
  return Type.Optional(
    Type.String({
      maxLength: MEDIA_URL_MAX,
      format: "uri",
      pattern: mediaUrlPattern(ownHost),
      description:
        "A link to media (an image) hosted elsewhere. Nothing is fetched from it: it is published as `media_url` and mailed to the council as a plain link. It must be an absolute `https:` or `http:` URL without a user name or password, on a public host name (not an IP address, a single-label name, `localhost` or a name under `.localhost`, `.local`, `.internal` or `.home.arpa`) other than this site's own, without white space, control or formatting characters; anything else is a 400. It is kept normalised (lower-case host, an international host name in its ASCII form, other characters percent-encoded). Send photos for this site as `media`.",
    }),
  );
}

/**
 * The form-encoded POST body (the standard), with every field's length limit (the server's check reads them from
 * here). `attribute[code]=value` and `attribute[code][]=value` are accepted.
 */
export const PostBodyForm = Type.Object(postFields, {
  additionalProperties: true,
  description: "Form fields as in the standard, plus `attribute[CODE]` (repeat `attribute[CODE][]` for lists).",
});

/**
 * The POST bodies as published, form-encoded (the standard) and multipart (the v2.1 draft, with `media` photo
 * files): lat and long are numbers inside the village's bounds, given together; a location is required (lat and
 * long, address_string, or address_id).
 */
export function postBodySchemas(bounds: Bounds, ownHost: string) {
  const located = {
    ...postFields,
    media_url: mediaUrlField(ownHost),
    lat: Type.Optional(
      Type.Number({
        minimum: bounds.south,
        maximum: bounds.north,
        description: "Latitude (WGS84 decimal degrees), inside the village area. With long.",
      }),
    ),
    long: Type.Optional(
      Type.Number({
        minimum: bounds.west,
        maximum: bounds.east,
        description: "Longitude (WGS84 decimal degrees), inside the village area. With lat.",
      }),
    ),
  };
  const rules = {
    additionalProperties: true,
    // A location: lat and long (together), an address_string, or an address_id that is a gazetteer place id.
    anyOf: [
      { required: ["lat", "long"] },
      { required: ["address_string"], properties: { address_string: NOT_BLANK } },
      { required: ["address_id"] },
    ],
    // lat and long together (if/then rather than dependentRequired, which the server's draft-07 Ajv lacks).
    allOf: [togetherRule("lat", "long"), togetherRule("long", "lat")],
  };
  return {
    form: Type.Object(located, {
      ...rules,
      description: "Form fields as in the standard, plus `attribute[CODE]` (repeat `attribute[CODE][]` for lists).",
    }),
    multipart: Type.Object(
      {
        ...located,
        media: Type.Optional(
          Type.Array(Type.String({ format: "binary" }), {
            description: "Photos (JPEG, PNG, WebP or HEIC), processed like web uploads; location metadata removed.",
          }),
        ),
      },
      rules,
    ),
  };
}

export const TokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 64 }),
  format: Format,
});

export const TokenResponse = Type.Array(
  Type.Object({
    service_request_id: Type.String(),
    token: Type.String(),
  }),
);

/** A response with the JSON schema for application/json and a string for text/xml (both UTF-8). */
export function jsonOrXml(description: string, json: TSchema) {
  return {
    description,
    content: {
      "application/json": { schema: json },
      "text/xml": { schema: Type.String({ description: "The same tree in XML (Spark convention)." }) },
    },
  };
}

/** The headers of every read's answer (200 and 304). */
function readHeaders(cacheControl: string, lastModified?: string) {
  return {
    ...(lastModified
      ? {
          "Last-Modified": {
            type: "string",
            description: `${lastModified}, as an HTTP date (RFC 9110 IMF-fixdate); send it back in If-Modified-Since for a 304 (If-None-Match, when sent, decides instead).`,
          },
        }
      : {}),
    ETag: {
      type: "string",
      description:
        "Strong entity tag of the answer's bytes (JSON and XML have different tags); send it back in If-None-Match for a 304.",
    },
    "Cache-Control": {
      type: "string",
      description: `${cacheControl} (\`private\` instead of \`public\` when the request carried an API key)`,
    },
    Vary: { type: "string", description: "X-Api-Key" },
    "Access-Control-Allow-Origin": { type: "string", description: "*" },
    "Access-Control-Expose-Headers": {
      type: "string",
      description: "ETag, Last-Modified, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After",
    },
  };
}

/**
 * The 200 and 304 of a read: the answer in JSON or XML with its caching headers, and Not Modified when
 * If-None-Match matched its ETag.
 */
export function readResponses(description: string, json: TSchema, cacheControl: string, lastModified?: string) {
  return {
    200: { ...jsonOrXml(description, json), headers: readHeaders(cacheControl, lastModified) },
    304: {
      description: lastModified
        ? "Not Modified: If-None-Match matched the current ETag (weak comparison; `*` matches), or, without If-None-Match, nothing changed since If-Modified-Since. No body; the headers a 200 would carry."
        : "Not Modified: If-None-Match matched the current ETag (weak comparison; `*` matches). No body; the headers a 200 would carry.",
      headers: readHeaders(cacheControl, lastModified),
    },
  };
}

/**
 * The shared Open311 error list of the OpenAPI document (components.schemas.Open311Errors, defined with the
 * document in src/openapi/document.ts). Routes that reference it use `rawJsonSerializer`, because errors are
 * written by the central error handler and never serialised through the route.
 */
const Open311ErrorsRef = Type.Unsafe<Static<typeof Open311Errors>>({ $ref: "#/components/schemas/Open311Errors" });

/** The serializer of Open311 routes: bodies arrive as JSON strings built by the presenters (see sendFormat). */
export const rawJsonSerializer = () => (data: unknown) => (typeof data === "string" ? data : JSON.stringify(data));

/** The Idempotency-Key request header of POST requests (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IdempotencyKeyHeaders = Type.Object(
  {
    "idempotency-key": Type.Optional(
      Type.String({
        maxLength: 300,
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description:
          'Optional. A new random value (a UUID, as a quoted string: `"8e03978e-40d5-43e8-bc93-6894a57f9324"`; the bare value is accepted too) for each new request, the same for its retries. A retry with the same key and the same body gets the first answer again (the same `service_request_id`) and creates nothing; while the first is still being processed it gets 409 with `Retry-After`; the same key with a different body gets 422. Keys belong to your API key: they are looked at only after the API key was checked (a request without a valid API key gets the 403 and nothing about any Idempotency-Key), and the keys of other clients are never matched. Keys are remembered for 30 days (less when the reporter asks for their data to be erased). A request that was refused (4xx) or failed releases its key.',
      }),
    ),
  },
  { additionalProperties: true },
);

/** The Open311 error responses a route may give. */
export function errorResponses(...statuses: (400 | 403 | 404 | 408 | 409 | 413 | 415 | 422 | 429 | 503)[]) {
  const text: Record<number, string> = {
    400: "Bad request: the errors say which parameter is wrong.",
    403: "Missing or invalid api_key.",
    404: "No such service, request or format.",
    408: "The upload arrived too slowly (under UPLOAD_MIN_BYTES_PER_SECOND, 1 KB/s by default, over a 10-s window) or the request took longer than REQUEST_TIMEOUT_SECONDS: it was stopped and nothing was stored.",
    409: "A request with the same Idempotency-Key is still being processed: retry after Retry-After seconds.",
    422: "The Idempotency-Key was already used with a different request body.",
    413: "The body is too large (too many fields, or photos past the size or count limit).",
    415: "The body is neither application/x-www-form-urlencoded nor multipart/form-data.",
    503: "Too many uploads are in progress: retry after Retry-After seconds.",
    429: "Rate limit reached: see Retry-After and the RateLimit headers.",
  };
  return Object.fromEntries(statuses.map((s) => [s, jsonOrXml(text[s] ?? "Error", Open311ErrorsRef)]));
}
