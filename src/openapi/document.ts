import type { SwaggerOptions } from "@fastify/swagger";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Config } from "../config.js";
import { isApiPath } from "../core/http/error-handler.js";
import { DOCUMENTED_PATTERN } from "../core/http/input.js";

type JsonSchema = OpenAPIV3_1.SchemaObject;

const PROBLEM_SCHEMA: JsonSchema = {
  type: "object",
  description: "An RFC 9457 problem details object, as sent with every error under /api/v1 and /data.",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", description: "Always `about:blank`: the `code` member identifies the problem." },
    title: { type: "string", description: "The HTTP status phrase.", examples: ["Bad Request"] },
    status: { type: "integer", examples: [400] },
    detail: { type: "string", description: "What went wrong, in words a developer can act on." },
    code: {
      type: "string",
      description: "A stable machine-readable error code from the platform's error catalogue.",
      examples: ["validation_failed", "not_found", "gone"],
    },
    instance: { type: "string", description: "The request path." },
    requestId: { type: "string", description: "Quote it when asking the volunteers about an error." },
    errors: {
      type: "array",
      description: "Per-parameter problems, for validation errors.",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } },
      },
    },
  },
};

const OPEN311_ERRORS_SCHEMA: JsonSchema = {
  type: "array",
  description: "The Open311 GeoReport v2 error list. In XML: `<errors><error><code/><description/></error></errors>`.",
  items: {
    type: "object",
    required: ["code", "description"],
    properties: {
      code: { type: "integer", description: "The HTTP status code.", examples: [400] },
      description: { type: "string", description: "What went wrong." },
    },
  },
};

/** The long description at the top of the document: what the APIs are and every choice made where the spec is silent. */
export function apiDescription(config: Config): string {
  const windowSeconds = Math.round(config.rateLimit.windowMs / 1000);
  return `Public APIs of the ${config.village.name} Community Platform, a volunteer-run civic platform for one village.
It is an independent community project, not a council service, and it is not for emergencies.

These API families share this description:

* **Business directory** (\`/api/v1/\`, tag *Businesses*) and its static export
  \`/data/businesses-canonical.json\`: schema.org JSON-LD, open to any origin, no key.
* **Open311 GeoReport v2** (\`/api/v2/\`, tag *Open311*): report local, non-urgent issues and read public reports.
  Reading needs no key; submitting needs an API key (the \`X-Api-Key\` header, or the standard's \`api_key\`).
* **Reports on a map** (\`/api/reports.geojson\` and \`/api/reports/map.json\`, tag *Reports*): the public reports as
  RFC 7946 GeoJSON for GIS tools and other sites, and the data the site's maps draw. Open to any origin, no key;
  errors are problem+json; conditional (\`ETag\`, and \`Last-Modified\` on the GeoJSON).

Machine-readable aids: this description at \`/openapi.yaml\`, \`/.well-known/openapi.yaml\` and \`/openapi.json\`;
a plain-text summary at \`/llms.txt\`; a human guide at \`/developers\`.

## Caching and conditional requests (business directory)

* Every \`/api/v1\` response carries \`ETag\` (a hash of the dataset content), \`Vary: Accept-Encoding\` and
  \`Access-Control-Allow-Origin: *\`; \`ETag\`, \`Last-Modified\` and \`X-Dataset-Version\` are listed in
  \`Access-Control-Expose-Headers\` so browsers can read them cross-origin. A single business also carries
  \`Last-Modified\`, when it last changed.
* \`Cache-Control\`: \`max-age=3600, s-maxage=86400\` on the list and single-business endpoints, \`max-age=300\` on
  the diff feed.
* \`X-Dataset-Version\` (SemVer of the dataset *schema*) is sent on the list endpoint only; the dataset *content*
  version is the \`ETag\`.
* Conditional requests follow RFC 9110: \`If-None-Match\` may hold a list of entity tags or \`*\`, and is compared with
  the weak comparison function; a match answers \`304 Not Modified\` with the same caching headers a \`200\` would send.
  Where \`Last-Modified\` is sent, \`If-Modified-Since\` is read too, but only when \`If-None-Match\` is absent.
  \`HEAD\` is supported everywhere \`GET\` is.
* Responses are negotiated as gzip or brotli (\`Accept-Encoding\`). Each encoding has its own entity tag (a suffix on
  the identity ETag), so no tag claims byte identity across encodings.
* An \`OPTIONS\` preflight is answered with open CORS headers, including for \`If-None-Match\`.

## Compression (every answer)

* Every text answer of 1 KB or more (JSON, XML, YAML, Atom, HTML) is sent brotli- or gzip-compressed when
  \`Accept-Encoding\` allows it (RFC 9110 §12.5.3: the highest q-value wins, ties go to brotli, then gzip;
  \`identity;q=1, *;q=0\` or no header gets the identity bytes, never a \`406\`), with \`Content-Encoding\` and
  \`Vary: Accept-Encoding\`. Smaller answers are sent as they are.
* A strong \`ETag\` names the bytes sent: a compressed answer's tag is the identity tag with \`-br\` or \`-gzip\`
  appended. Send back the tag you were given, with the same \`Accept-Encoding\`, for a \`304\` that carries it again.

## A tested contract

This description is what the server does, and the test suite checks it: requests generated from it for every
operation, valid ones and ones that break one constraint, must get a documented status, a body that fits the schema
documented for that status and content type, never a 400 or 422 when valid and always a documented 4xx when not.
What the schemas cannot say is in the descriptions (an id that must exist, a date window of at most 90 days).

* Text (every query, header and form value) holds no control character but tab, LF and CR, no DEL and no broken
  Unicode (a lone UTF-16 surrogate); a path parameter holds no control character at all. Every text parameter's
  \`pattern\` says so, and breaking it is a \`400\`.
* Before any route: a path parameter longer than 200 characters (Unicode code points, once %-decoded) is \`414\`,
  a request line and headers over 16 KB \`431\`; both are documented on every operation.
* Lengths (\`maxLength\`) count Unicode code points, as JSON Schema does.

## Errors

* \`/api/v1\` and \`/data\`: \`application/problem+json\` (RFC 9457) with a stable \`code\` and a helpful \`detail\`.
  An unknown business id is \`404\`; a deleted one is \`410 Gone\`; an invalid or missing \`since\` and a \`q\` longer than
  200 characters are \`400\`.
* \`/api/v2\`: the Open311 error list (\`[{"code":400,"description":"…"}]\` or \`<errors>\` in XML), with HTTP 400
  (bad parameters), 403 (missing or invalid \`api_key\`), 404 (unknown \`service_code\` or request id) and 429.
* Every family: a path that exists asked with a method it does not take (\`POST /api/v1/businesses\`, \`TRACE\`,
  \`QUERY\`, …) is \`405 Method Not Allowed\` with an \`Allow\` header listing the methods it takes, in that family's
  error format; an unknown path is \`404\`. \`HEAD\` is answered wherever \`GET\` is, with the same headers and no body.

## Idempotency-Key (report submissions)

Every way of submitting a report (\`POST /api/v2/requests.{json,xml}\`, the app's \`POST /api/app/reports\` and the
web form) accepts an \`Idempotency-Key\` request header (IETF draft-ietf-httpapi-idempotency-key-header): a new
random value (a UUID, sent as a quoted string) for each new report, the same for its retries. A retry with the same
key and the same body gets the first answer again (the same reference) and creates nothing; a retry while the first
request is still being processed gets \`409\` with \`Retry-After\`; the same key with a different body gets \`422\`.
Keys are kept in the database for 30 days, so this holds across restarts and several server processes. Only an
answer that created a report is kept: a refused request (4xx) releases its key, so it can be corrected and sent
again. The key is optional on Open311 and required on \`/api/app/reports\`; errors come in each family's format.
Keys belong to the sender and are looked at only after the sender is known: on Open311 each API key has its own
keys (a request without a valid API key gets the \`403\`, never a stored answer or a \`422\`); a signed-in person's
keys are their account's; anonymous posts share one key space, where keys are the random UUIDs the site's pages
make. A stored answer is erased with the reporter's personal data.

## Rate limits

The Open311 API is rate-limited: ${config.rateLimit.readMax} reads and ${config.rateLimit.writeMax} submissions per
${windowSeconds} seconds, counted per API key when a valid key is sent and per client address otherwise (an IPv6
client counts by its /64, an IPv4-mapped IPv6 address as its IPv4 address; operators can change the values). Every answer carries the IETF draft \`RateLimit-Limit\`, \`RateLimit-Remaining\`
and \`RateLimit-Reset\` headers; a \`429\` carries \`Retry-After\` (seconds). The business directory is not
rate-limited: it is served from prepared, cacheable responses.

## Business directory: choices where the specification is silent

* **Business objects** (schema.org \`LocalBusiness\` or its most specific subtype): \`@id\` is
  \`{base}/api/v1/businesses/{id}\`, \`identifier\` is the canonical id (a URL-safe slug) and \`category\` the display
  category; then \`name\`, \`description\`, \`address\` (\`PostalAddress\`), \`geo\` (\`GeoCoordinates\`, numbers),
  \`telephone\`, \`email\`, \`url\`, \`image\`, \`sameAs\`, \`openingHoursSpecification\` (day names),
  \`mainEntityOfPage\` (the directory page), \`dateCreated\` and \`dateModified\` (UTC). Empty fields are left out.
* **Vocabulary**: every property is a schema.org property defined for the type of the object that carries it (the
  business's type through its superclasses, or \`PostalAddress\`, \`GeoCoordinates\`, \`OpeningHoursSpecification\`,
  \`ItemList\`, \`ListItem\`), except three that schema.org does not define for \`LocalBusiness\`: \`category\`,
  \`dateCreated\` and \`dateModified\` (schema.org's terms of these names are for products and offers, and for creative
  works). They keep their keys; a business's \`@context\` is \`["https://schema.org", {"directory":
  "{base}/api/v1/vocabulary#", "category": "directory:category", "dateCreated": "directory:dateCreated",
  "dateModified": "directory:dateModified"}]\`, so JSON-LD processors read them as this platform's terms, which
  \`GET /api/v1/vocabulary\` describes (RDFS; the dates are sub-properties of Dublin Core's \`created\` and
  \`modified\`). Lists keep \`"@context": "https://schema.org"\`; each item carries its own context.
* **Lists** are a schema.org \`ItemList\` of \`ListItem\`s (\`position\` from 1, \`item\` the business), ordered by
  identifier and not paginated (the whole village fits); the list's \`@id\` includes the query.
* **Filters** combine with AND; empty parameters are ignored. \`category\` is an exact match ignoring case and
  accents. \`schemaType\` accepts a schema.org type name (any case, \`schema:\` prefix or full URL) and matches it and
  all its subtypes (\`FoodEstablishment\` finds bakeries and cafés); a name that is not a schema.org type is a 400, a
  real type with no match gives an empty list. \`q\` (at most 200 characters) matches when every word appears, as
  part of a word and ignoring case and accents, in the name, description, category or address.
* **Diff**: \`since\` is required and means 00:00 UTC on that day. The body is
  \`{since, range: {from, to}, datasetVersion, schemaVersion, counts, added, updated, removed}\`; a business created in
  the range is in \`added\` even if it was also updated; \`removed\` holds tombstones \`{@id, identifier, dateDeleted}\`.
  Apply \`added\` and \`updated\` as upserts and \`removed\` as deletions, then ask again with the day of \`range.to\`.
* **ETags**: the list, single-business and export responses use the SHA-256 of the canonical export as the entity tag
  (\`-gzip\` or \`-br\` appended for compressed bodies); the diff's tag also names the change-log position. A \`304\` is
  given only for the tag of the encoding that would be sent. Identity is always acceptable (no \`406\`).
* **Export**: \`/data/businesses-canonical.json\` is the whole dataset as an \`ItemList\`, with the list's caching and
  CORS rules; the dataset schema version is \`1.1.0\` (1.1.0: the directory's own terms in each business's
  \`@context\`). Licence: ODbL 1.0.

## Open311: choices where the standard is silent

* \`service_request_id\` is the report's reference number (e.g. \`K7QM-3X9P\`; lookups also accept lower case, no
  dash, or O/I/L for 0/1). Every service is \`realtime\`; \`jurisdiction_id\` is accepted and ignored.
* **Date window** of \`GET requests\`: none given → the last 90 days; only \`start_date\` → the 90 days from it; only
  \`end_date\` → the 90 days before it; both must be in order and at most 90 days apart (else 400). Datetimes need a
  timezone (\`Z\`, \`+01:00\` or \`+0100\`); a bare date means the start (or, for \`end_date\`, the end) of that UTC day.
* **Filters**: \`service_request_id\` (comma list) overrides the others (which must still be well-formed);
  \`service_code\` takes a comma list and an unknown code is a 404; \`status\` is \`open\`, \`closed\` or both.
  Newest first. Extensions: \`page\` (from 1) and \`page_size\` (default and maximum 1,000), and \`lat\` +
  \`long\` + \`radius\` (metres, default 500, maximum 20,000) for reports near a place.
* **Statuses**: open, investigating, in progress and action scheduled are \`open\`; fixed, closed, duplicate and not
  the council's responsibility are \`closed\`. \`status_notes\` is the note of the latest public update by staff or the
  council (their public status text), or null (an empty element in XML) when there is none. Updates written by
  residents or by the reporter appear on the report's web page and in its Atom feeds, never in \`status_notes\`.
* **Request fields**: \`description\` is prefixed with the report's title when the title is not its first sentence;
  \`agency_responsible\` is the council department the category is forwarded to, or the village volunteers;
  \`service_notice\` says when and to whom the report was forwarded; \`media_url\` is the absolute URL of the first
  photo (else the client's own \`media_url\`); \`zipcode\` is null.
* **API keys**: send yours in the \`X-Api-Key\` header (on POST, and on reads for your own rate-limit allowance);
  the standard's \`api_key\` form field, or \`api_key\` in the query string, still works (form field first, then
  header, then query). The header keeps the key out of URLs, logs and caches; key values are never logged. A
  response to a request that carried a key is \`Cache-Control: private\`, and \`/api/v2\` answers carry
  \`Vary: X-Api-Key\`. CORS preflight allows \`X-Api-Key\`.
* **POST**: an API key (above); \`description\` is required (at most 4,000 characters,
  no HTML) and gives the title; a location by \`lat\` + \`long\` inside the village, \`address_string\`, or \`address_id\`
  (a gazetteer place id). Attributes are validated against the service definition. Photos may be sent as multipart
  \`media\` (GeoReport v2.1 draft) and lose all metadata. Answers \`200\` with the standard's body. The reporter gets a
  confirmation email when \`email\` is given; Open311 reporters' contact details are never passed to the council.
  \`account_id\` is your own identifier of the person: echoed in the answer, never stored, never one of this
  platform's accounts. \`media_url\` is a link to media elsewhere that is never fetched, published and mailed to the
  council as a plain link: only an absolute \`https:\`/\`http:\` URL without \`user:pass@\`, on a public host name
  (no IP address, single-label or local name) other than this site's, is taken (else 400); send photos as \`media\`.
* **Forwarding to councils**: a report goes to the council department of its category, by email or, where the
  department speaks Open311, to the council's own GeoReport v2 service: a form-encoded \`POST requests.json\` with
  the place in words as \`address_string\`, public photo URLs as \`media_url\`, the same \`Idempotency-Key\` on every
  attempt, and the reporter's name and email only when they agreed that the council may contact them. The council's
  answers are asked for again by \`service_request_id\` (with \`If-None-Match\`) every \`OPEN311_POLL_SECONDS\`; a
  change of status or a note from the council becomes this report's \`status\` and \`status_notes\` here, and
  "Update from the council" on its web page and Atom feeds. \`service_notice\` says when and to whom it was sent.
* **Tokens**: none are issued, because every service is realtime. A token that is a public report's reference maps to
  that request; anything else is a 404 that explains this.
* **Services**: only categories that take new reports are listed; a category the council's administrators retire
  leaves \`services\` (its definition is a 404) and a POST for it is a 400 (\`service_code "…" is retired\`), while
  its existing requests keep their \`service_code\` and stay queryable. Service codes never change and are never
  reused. Edits to categories and their questions show at once.
* **Caching**: discovery \`public, max-age=300\`; services and definitions \`public, no-cache\` with an \`ETag\` that
  changes with the catalogue; requests \`public, max-age=60\` (\`private\` instead of \`public\` when the request
  carried an API key); POST and errors \`no-store\`. Every read (discovery, services, definitions, searches, one
  request, tokens) carries a strong \`ETag\`: send it back in \`If-None-Match\` for a \`304\`. One request and one
  service definition also carry \`Last-Modified\` (the report's last change; the catalogue's last change, as services
  keep no change time of their own), read back from \`If-Modified-Since\` only without \`If-None-Match\`. Every
  \`/api/v2\` answer carries \`Access-Control-Allow-Origin: *\` and exposes \`ETag\`, \`Last-Modified\` and the
  rate-limit headers to scripts; the
  preflight allows \`If-None-Match\`, \`If-Modified-Since\`, \`X-Api-Key\`, \`Idempotency-Key\` and
  \`Content-Type\`.

## Privacy

A reporter's name, email, phone, device id and account id are never returned by any endpoint. Photos are stripped
of all metadata (EXIF, GPS) before they are stored.

## Versioning and compatibility

The business API is versioned by path (\`/api/v1/\`). Within v1, changes are additive only: new optional fields or
parameters. A breaking change would get a new path version, with the old one kept for at least six months and
announced with \`Deprecation\` and \`Sunset\` headers. The dataset schema has its own SemVer (\`X-Dataset-Version\`):
a minor bump adds fields, a major bump changes or removes them. The Open311 API follows GeoReport v2.`.replace(
    /([^\n])\n(?![\n*#])\s*/g,
    "$1 ",
  );
}

/** Options for @fastify/swagger: what the document says beyond the route schemas. */
export function swaggerOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: `${config.village.name} Community Platform API`,
        version: "1.0.0",
        summary: "Business directory (schema.org JSON-LD) and Open311 GeoReport v2 issue reporting.",
        description: apiDescription(config),
        contact: { name: "The volunteers", email: config.village.contactEmail, url: `${config.baseUrl}/developers` },
        license: { name: "AGPL-3.0-or-later (code); ODbL-1.0 (business dataset)", identifier: "AGPL-3.0-or-later" },
      },
      servers: [{ url: config.baseUrl, description: "This platform" }],
      tags: [
        {
          name: "Businesses",
          description: "The local business directory as schema.org JSON-LD, its diff feed and static dataset export.",
        },
        { name: "Open311", description: "Open311 GeoReport v2: report categories (services) and reports (requests)." },
        {
          name: "Reports",
          description:
            "Public reports on a map: the data the site's maps draw, and the same reports as GeoJSON (RFC 7946).",
        },
        {
          name: "App",
          description: "The installable web app's own endpoint: reports saved on the device while offline.",
        },
      ],
      externalDocs: { description: "Developer guide", url: `${config.baseUrl}/developers` },
      components: {
        securitySchemes: {
          open311ApiKeyHeader: {
            type: "apiKey",
            in: "header",
            name: "X-Api-Key",
            description:
              "Preferred way to send your API key, on POST and (optionally, for your own rate-limit allowance) on " +
              "reads: a header stays out of URLs, logs and cache keys. Ask the volunteers for a key " +
              "(`civic api-keys create`).",
          },
          open311ApiKey: {
            type: "apiKey",
            in: "query",
            name: "api_key",
            description:
              "The GeoReport v2 standard's way: the `api_key` form field of a POST (the query string is accepted " +
              "too). Still supported; prefer the `X-Api-Key` header.",
          },
        },
        schemas: {
          Problem: PROBLEM_SCHEMA,
          Open311Errors: OPEN311_ERRORS_SCHEMA,
        },
      },
      // Everything is public unless an operation says otherwise.
      security: [],
    },
    hideUntagged: false,
    transformObject(documentObject) {
      if (!("openapiObject" in documentObject)) return documentObject.swaggerObject;
      // A copy: the generated document shares schema objects with the routes, which completeOperations must not change.
      const copy = JSON.parse(JSON.stringify(documentObject.openapiObject)) as OpenAPIV3_1.Document;
      return completeOperations(copy);
    },
    transform({ schema, url }) {
      if (!isApiPath(url)) return { schema: { ...(schema ?? {}), hide: true }, url };
      return { schema, url };
    },
  };
}

type Operation = OpenAPIV3_1.OperationObject;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** A stable operationId from the method and path: `GET /api/v2/requests/{service_request_id}.{format}` → `getOpen311RequestsByServiceRequestIdFormat`. */
export function operationIdFor(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1\//, "/")
    .replace(/^\/api\/v2\//, "/open311/")
    .replace(/\{([^}]+)\}/g, "by_$1")
    .split(/[/.\-_]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return `${method}${words.join("")}`.replace(/ByFormat$/, "");
}

const header = (description: string, schema: object = { type: "string" }): OpenAPIV3_1.HeaderObject =>
  ({ description, schema }) as OpenAPIV3_1.HeaderObject;

/** Headers every Open311 answer carries. */
const OPEN311_HEADERS = {
  "Access-Control-Allow-Origin": header("Always `*`: any website may call the API.", { type: "string", const: "*" }),
  "RateLimit-Limit": header("Requests allowed per window for this key or client address.", { type: "integer" }),
  "RateLimit-Remaining": header("Requests left in the current window.", { type: "integer" }),
  "RateLimit-Reset": header("Seconds until the window resets.", { type: "integer" }),
};

/** Example bodies for the Open311 answers (JSON; the XML form is the same tree). */
const OPEN311_EXAMPLES: Record<string, unknown> = {
  "/api/v2/services.{format}": [
    {
      service_code: "streetlight",
      service_name: "Street light",
      description: "A street light that is out, flickering, on during the day or damaged.",
      metadata: true,
      type: "realtime",
      keywords: "lamp, light, dark",
      group: "Streets and lighting",
    },
  ],
  "/api/v2/requests.{format}": [
    {
      service_request_id: "K7QM-3X9P",
      status: "open",
      status_notes: "Passed to the council's highways team.",
      service_name: "Pothole",
      service_code: "pothole",
      description: "Deep pothole by the bus stop on the High Street.",
      agency_responsible: "Highways",
      service_notice: null,
      requested_datetime: "2026-11-20T09:14:03.000Z",
      updated_datetime: "2026-11-21T11:02:45.000Z",
      expected_datetime: null,
      address: "Outside 14 High Street",
      address_id: null,
      zipcode: null,
      lat: 50.9862,
      long: -2.0437,
      media_url: "https://civic.example.org/photos/3f1c9a0e.jpg",
    },
  ],
};

/**
 * What the app-wide input check (core/http/input.ts) refuses, as patterns a client or a generated tester honours:
 * query, header and body text holds no C0 control character but tab, LF and CR, no DEL and no lone UTF-16
 * surrogate (broken Unicode); a path parameter holds no control character at all.
 */
export const TEXT_PATTERN = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F\\uD800-\\uDFFF]*$";
export const PATH_TEXT_PATTERN = "^[^\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*$";

/** Formats whose values hold no control character anyway (binary is a file, not text). */
const TEXT_FORMATS = new Set(["date", "date-time", "email", "uri", "binary", "byte"]);

/**
 * Gives every free-text string schema (no enum, const, pattern or format of its own) the pattern of the input
 * check, in parameters and request bodies, nested ones included.
 */
function patternText(schema: JsonSchema | OpenAPIV3_1.ReferenceObject | undefined, pattern: string): void {
  if (!schema || "$ref" in schema) return;
  const s = schema as JsonSchema & { const?: unknown; [DOCUMENTED_PATTERN]?: string };
  // A pattern the handler checks itself (with its own messages) is published as the schema's pattern.
  if (s[DOCUMENTED_PATTERN] !== undefined) {
    s.pattern = s[DOCUMENTED_PATTERN];
    delete s[DOCUMENTED_PATTERN];
  }
  if (
    s.type === "string" &&
    s.pattern === undefined &&
    s.enum === undefined &&
    s.const === undefined &&
    !TEXT_FORMATS.has(s.format ?? "")
  ) {
    s.pattern = pattern;
  }
  for (const sub of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) patternText(sub, pattern);
  for (const sub of Object.values(s.properties ?? {})) patternText(sub, pattern);
  if ("items" in s && s.items) patternText(s.items, pattern);
}

/** An error answer in the family's format: an Open311 error list on /api/v2, problem+json elsewhere. */
function familyError(path: string, description: string): OpenAPIV3_1.ResponseObject {
  return path.startsWith("/api/v2/")
    ? {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Open311Errors" } } },
      }
    : {
        description,
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
}

/**
 * Fills what every operation of the public description needs but route schemas may leave out: an operationId, the
 * family's error format for client errors (problem+json on /api/v1 and /data, Open311 error lists on /api/v2), what
 * the app-wide checks answer before any route (400 for text with control characters, 414 for an over-long path
 * parameter, 431 for a request line and headers over 16 KB), 304 on every Open311 read (they carry entity tags),
 * and for Open311 the XML form, the CORS and rate-limit headers and examples.
 */
export function completeOperations(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!item) continue;
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      op.operationId ??= operationIdFor(method, path);
      op.responses ??= {};
      const hadClientError = Object.keys(op.responses).some((code) => code.startsWith("4"));
      const parameters = (op.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
      for (const p of parameters) patternText(p.schema, p.in === "path" ? PATH_TEXT_PATTERN : TEXT_PATTERN);
      const body = op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
      for (const media of Object.values(body?.content ?? {})) patternText(media.schema, TEXT_PATTERN);
      if (path.startsWith("/api/v2/") && method === "get") {
        op.responses["304"] ??= {
          description: "Not Modified: the `If-None-Match` entity tag matches the answer's `ETag`; no body.",
        };
      }
      if ((parameters.length > 0 || body) && !op.responses["400"]) {
        op.responses["400"] = familyError(
          path,
          "Bad request: a parameter or field breaks its schema (e.g. a control character or broken Unicode in text).",
        );
      }
      if (parameters.some((p) => p.in === "path")) {
        op.responses["414"] ??= familyError(
          path,
          "URI Too Long: a path parameter is longer than 200 characters (code points).",
        );
      }
      op.responses["431"] ??= familyError(
        path,
        "Request Header Fields Too Large: the request line and headers exceed 16 KB (a very long query string).",
      );
      if (path.startsWith("/api/v2/")) describeOpen311Responses(path, method, op);
      // A 304 never has a body (RFC 9110 §15.4.5): a route schema that gives it headers must not gain a content.
      const notModified = op.responses["304"];
      if (notModified && !("$ref" in notModified)) delete notModified.content;
      if (!hadClientError) {
        op.responses["4XX"] = familyError(
          path,
          path.startsWith("/api/v2/")
            ? "A client error, as an Open311 error list."
            : "A client error, as an RFC 9457 problem details object.",
        );
      }
    }
  }
  return doc;
}

function describeOpen311Responses(path: string, method: string, op: Operation): void {
  for (const [code, response] of Object.entries(op.responses ?? {})) {
    if ("$ref" in response) continue;
    response.headers = { ...OPEN311_HEADERS, ...(response.headers ?? {}) };
    if (code === "429") {
      response.headers["Retry-After"] = header("Seconds to wait before trying again.", { type: "integer" });
    }
    const json = response.content?.["application/json"];
    if (!json) continue;
    const example = code === "200" && method === "get" ? OPEN311_EXAMPLES[path] : undefined;
    if (example !== undefined) json.example = example;
    response.content = {
      ...response.content,
      "text/xml": {
        schema: {
          type: "string",
          description:
            "The same answer in GeoReport v2 XML (use the `.xml` extension): the standard's root elements " +
            "(`services`/`service`, `service_definition`, `service_requests`/`request`, `discovery`, `errors`/`error`).",
        },
      },
    };
  }
}
