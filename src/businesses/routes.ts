import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Static } from "typebox";
import { isStorableInstant } from "../core/calendar.js";
import type { Civic } from "../core/context.js";
import { registerErrorHandling } from "../core/http/error-handler.js";
import { AppError } from "../core/http/errors.js";
import { createHash } from "node:crypto";
import { BusinessDataset, LIST_PATH, type ListFilters, type Snapshot } from "./dataset.js";
import { vocabularyDocument } from "./jsonld.js";
import { DATASET_SCHEMA_VERSION } from "./model.js";
import { businessPages } from "./pages.js";
import { Prepared, sendPrepared } from "./representation.js";
import { searchBusinessIds } from "./search.js";
import {
  BusinessSchema,
  DiffQuery,
  DiffSchema,
  IdParams,
  ItemListSchema,
  ListQuery,
  notModified,
  problems,
  representationHeaders,
  VocabularySchema,
} from "./schemas.js";
import { schemaClass, vocabularySource } from "./vocabulary.js";

/** Cache-Control of the list and single-business responses (spec §8), and of the canonical export. */
export const DIRECTORY_CACHE_CONTROL = "max-age=3600, s-maxage=86400";
/** Cache-Control of the diff feed (spec §8). */
export const DIFF_CACHE_CONTROL = "max-age=300";

/** CORS headers on every /api/v1 (and /data) response, errors included. */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag, Last-Modified, X-Dataset-Version",
} as const;

const LIST_HEADERS = {
  cacheControl: DIRECTORY_CACHE_CONTROL,
  extra: { "x-dataset-version": DATASET_SCHEMA_VERSION },
} as const;
const SINGLE_HEADERS = { cacheControl: DIRECTORY_CACHE_CONTROL } as const;

const datasets = new WeakMap<Civic, BusinessDataset>();

/** The dataset an app serves (tests use it to wait for a change to show). */
export function businessDataset(app: FastifyInstance): BusinessDataset {
  const found = datasets.get(app.civic);
  if (!found) throw new Error("the business routes are not registered");
  return found;
}

const SINCE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Validates `since`: present and a real calendar date (2026-02-30 is not). */
export function parseSince(since: unknown): string {
  const fail = (message: string) =>
    new AppError("validation_failed", `since ${message}. Give a calendar date as YYYY-MM-DD, e.g. since=2026-11-01.`, {
      fields: [{ field: "since", message }],
    });
  if (since === undefined || since === "") throw fail("is required");
  if (typeof since !== "string") throw fail("must be given once");
  const m = SINCE.exec(since);
  if (!m) throw fail(`"${since}" is not in the form YYYY-MM-DD`);
  const date = new Date(`${since}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== since) {
    throw fail(`"${since}" is not a real calendar date`);
  }
  if (!isStorableInstant(date.getTime())) throw fail(`"${since}" is before the year 0001`);
  return since;
}

/** Replaces `schemaType` by the schema.org class it names (any case, prefix or IRI); a 400 when it names none. */
function canonicalSchemaType(query: Record<string, unknown>): void {
  const given = query.schemaType;
  if (typeof given !== "string" || given.trim() === "") return;
  const type = schemaClass(given);
  if (!type) {
    throw new AppError(
      "validation_failed",
      `schemaType "${given}" is not a schema.org type. Use a type name such as LocalBusiness, FoodEstablishment or Bakery.`,
      { fields: [{ field: "schemaType", message: "is not a schema.org type" }] },
    );
  }
  query.schemaType = type;
}

/** Filters as given (empty parameters count as absent) and the list's canonical query string. */
export function listFilters(query: Static<typeof ListQuery>): { filters: ListFilters; search: string } {
  const filters: ListFilters = {};
  const params = new URLSearchParams();
  for (const key of ["category", "schemaType", "q"] as const) {
    const value = query[key];
    if (value === undefined || value.trim() === "") continue;
    filters[key] = value;
    params.set(key, value);
  }
  return { filters, search: params.toString() };
}

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

const API_DESCRIPTION = `Open data about local businesses as schema.org JSON-LD. Every response allows any origin. Responses carry a strong ETag per content encoding (identity, gzip, br) derived from the dataset content version; send it back in If-None-Match for a 304. schemaType subtype matching uses the schema.org vocabulary (${vocabularySource}).`;

/**
 * The business directory: the `/api/v1` JSON-LD API, the canonical export under `/data`, the diff feed and the
 * directory pages. The API and the export are encapsulated plugins under their prefixes, each with its own CORS hook,
 * preflight and problem+json error handling, so errors and unknown paths there get them too.
 */
export async function businessRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const civic = app.civic;
  const dataset = new BusinessDataset(civic.database.db, civic.config.baseUrl);
  datasets.set(civic, dataset);
  let timer: NodeJS.Timeout | undefined;
  civic.workers.push({
    name: "business-dataset",
    start() {
      // Keeps this instance's view of the change log at most a second old, so requests never wait on a check.
      timer = setInterval(() => {
        dataset.refresh().catch((error: unknown) => app.log.error({ err: error }, "business dataset refresh failed"));
      }, 1000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await dataset.settled();
    },
  });
  const snapshot = () => dataset.fresh() ?? dataset.current();
  /**
   * Runs `respond` with the current snapshot: synchronously when it was checked recently (the hot path does not
   * wait on a promise), otherwise after the check.
   */
  const withSnapshot = (respond: (snap: Snapshot) => FastifyReply): Promise<FastifyReply> | undefined => {
    const snap = dataset.fresh();
    if (snap) {
      respond(snap);
      return undefined;
    }
    return dataset.current().then(respond);
  };

  // Preflight: anything a browser may ask for is allowed; no credentials are involved.
  const preflight = { schema: { hide: true }, config: { csrf: false } };
  const answerPreflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const asked = request.headers["access-control-request-headers"];
    const allowHeaders =
      typeof asked === "string" && /^[A-Za-z0-9!#$%&'*+.^_`|~, -]{1,1000}$/.test(asked) ? asked : "If-None-Match";
    return reply
      .code(204)
      .headers({
        ...CORS_HEADERS,
        "access-control-allow-methods": "GET, HEAD, OPTIONS",
        "access-control-allow-headers": allowHeaders,
        "access-control-max-age": "86400",
        vary: "Access-Control-Request-Headers",
        "cache-control": "max-age=86400",
      })
      .send();
  };
  /** What the API and the export share: open CORS on every answer, preflight, errors as problem+json. */
  const openData = (scope: FastifyInstance) => {
    registerErrorHandling(scope, "problem");
    scope.addHook("onRequest", (_request, reply, done) => {
      reply.headers(CORS_HEADERS);
      done();
    });
    scope.options("/*", preflight, answerPreflight);
  };

  // The bodies are prepared Buffers, already encoded (core/http/compression.ts leaves these routes alone); this
  // keeps Fastify from compiling serialisers it would never use.
  const prepared = {
    serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    config: { compress: false },
  };

  await app.register(
    async (scope) => {
      const app = scope.withTypeProvider<TypeBoxTypeProvider>();
      openData(app);
      app.get(
        "/businesses",
        {
          ...prepared,
          // Before the schema check: any spelling of a schema.org class becomes its listed name, and a name that
          // is not a class gets its own message.
          // Synchronous and skipped without a query: this is the hot path of the 200 and 304 benchmarks.
          preValidation: (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
            if (!request.url.includes("?")) return done();
            try {
              canonicalSchemaType(request.query as Record<string, unknown>);
              done();
            } catch (error) {
              done(error as Error);
            }
          },
          schema: {
            summary: "List businesses",
            description: `${API_DESCRIPTION}\n\nReturns a schema.org ItemList of the businesses matching every given filter (AND). Empty parameters are ignored. Sends X-Dataset-Version.`,
            tags: ["Businesses"],
            querystring: ListQuery,
            response: {
              200: { ...ItemListSchema, headers: representationHeaders(DIRECTORY_CACHE_CONTROL, true) },
              304: notModified(DIRECTORY_CACHE_CONTROL, true),
              400: problems.badRequest,
            },
          },
        },
        (request, reply) => {
          const { filters, search } = request.url.includes("?")
            ? listFilters(request.query)
            : { filters: {}, search: "" };
          if (filters.q === undefined) {
            return withSnapshot((snap) => sendPrepared(request, reply, snap.listFor(filters, search), LIST_HEADERS));
          }
          // `q` is the database's full-text search (businesses/search.ts), asked once per query and dataset version.
          const q = filters.q;
          return Promise.resolve(snapshot()).then(async (snap) => {
            const list =
              snap.preparedList(filters, search) ??
              snap.listFor(filters, search, await searchBusinessIds(civic.database.db, q));
            return sendPrepared(request, reply, list, LIST_HEADERS);
          });
        },
      );

      app.get(
        "/businesses/:id",
        {
          ...prepared,
          schema: {
            summary: "Get one business",
            description:
              "A schema.org LocalBusiness (its most specific subtype) as JSON-LD. An unknown id is a 404; a business that was removed is a 410. `Last-Modified` is when the business last changed (`If-Modified-Since` gives a 304 when no `If-None-Match` is sent).",
            tags: ["Businesses"],
            params: IdParams,
            response: {
              200: { ...BusinessSchema, headers: representationHeaders(DIRECTORY_CACHE_CONTROL, false, true) },
              304: notModified(DIRECTORY_CACHE_CONTROL, false, true),
              404: problems.notFound,
              410: problems.gone,
            },
          },
        },
        (request, reply) =>
          withSnapshot((snap) => {
            const { id } = request.params;
            const entry = snap.byId.get(id);
            if (!entry) {
              const deletedAt = snap.deleted.get(id);
              if (deletedAt) {
                throw new AppError(
                  "gone",
                  `The business "${id}" was removed from the directory on ${dateFormat.format(new Date(deletedAt))}.`,
                );
              }
              throw new AppError(
                "not_found",
                `There is no business with id "${id}". GET ${LIST_PATH} lists every business with its identifier.`,
              );
            }
            const lastModified = new Date(entry.record.updatedAt);
            return sendPrepared(request, reply, snap.single(entry), { ...SINGLE_HEADERS, lastModified });
          }),
      );

      const vocabularyBytes = Buffer.from(JSON.stringify(vocabularyDocument(civic.config.baseUrl)));
      const vocabulary = new Prepared(vocabularyBytes, createHash("sha256").update(vocabularyBytes).digest("hex"));
      app.get(
        "/vocabulary", // VOCABULARY_PATH
        {
          ...prepared,
          schema: {
            summary: "The directory's own vocabulary",
            description:
              "The terms a business carries that schema.org does not define for LocalBusiness (`category`, `dateCreated`, `dateModified`), as RDFS in JSON-LD. Every business's `@context` maps these keys to `{BASE_URL}/api/v1/vocabulary#category` and so on; this document is what those IRIs lead to.",
            tags: ["Businesses"],
            response: {
              200: {
                description: "The vocabulary (application/ld+json)",
                content: { "application/ld+json": { schema: VocabularySchema } },
                headers: {
                  ...representationHeaders(DIRECTORY_CACHE_CONTROL, false),
                  ETag: {
                    type: "string",
                    description:
                      'The sha-256 (hex) of the document, quoted; "-gzip" or "-br" is appended for encoded responses',
                  },
                },
              },
              304: notModified(DIRECTORY_CACHE_CONTROL, false),
            },
          },
        },
        (request, reply) =>
          sendPrepared(request, reply, vocabulary, {
            cacheControl: DIRECTORY_CACHE_CONTROL,
            contentType: "application/ld+json",
          }),
      );

      app.get(
        "/diff",
        {
          ...prepared,
          // Before the schema check, so a missing or malformed `since` gets this message (with an example) rather
          // than the schema's pattern.
          preValidation: async (request: FastifyRequest) => {
            parseSince((request.query as Record<string, unknown>).since);
          },
          schema: {
            summary: "Changes since a date",
            description:
              "What was added, updated and removed since 00:00 UTC on `since`, for clients that keep a copy of the dataset. Poll it (it may be cached for 5 minutes) and apply it; removed businesses are tombstones with their deletion time.",
            tags: ["Businesses"],
            querystring: DiffQuery,
            response: {
              200: { ...DiffSchema, headers: representationHeaders(DIFF_CACHE_CONTROL, false) },
              304: notModified(DIFF_CACHE_CONTROL, false),
              400: problems.badRequest,
            },
          },
        },
        async (request, reply) => {
          const since = parseSince(request.query.since);
          const snap = await snapshot();
          const diff = await snap.diff(civic.database.db, since);
          return sendPrepared(request, reply, diff, { cacheControl: DIFF_CACHE_CONTROL });
        },
      );
    },
    { prefix: "/api/v1" },
  );

  await app.register(
    async (scope) => {
      const app = scope.withTypeProvider<TypeBoxTypeProvider>();
      openData(app);
      app.get(
        "/businesses-canonical.json", // CANONICAL_PATH under /data
        {
          ...prepared,
          schema: {
            summary: "The whole business dataset",
            description:
              "The canonical dataset: every business as a schema.org ItemList ordered by identifier. Its ETag (without quotes) is the sha-256 of these bytes and is the dataset content version. Same conditional-request rules as the API. `civic businesses export` writes the same bytes and `civic businesses import` reads them.",
            tags: ["Businesses"],
            response: {
              200: { ...ItemListSchema, headers: representationHeaders(DIRECTORY_CACHE_CONTROL, false) },
              304: notModified(DIRECTORY_CACHE_CONTROL, false),
            },
          },
        },
        (request, reply) => withSnapshot((snap) => sendPrepared(request, reply, snap.canonical, SINGLE_HEADERS)),
      );
    },
    { prefix: "/data" },
  );

  await app.register(businessPages, { dataset });
}
