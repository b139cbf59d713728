import { type Static, Type } from "typebox";
import { DATASET_SCHEMA_VERSION } from "./model.js";
import { schemaClassNames } from "./vocabulary.js";

/**
 * TypeBox schemas of the business API, for validation and for the OpenAPI description. The JSON bodies are sent
 * as prepared bytes, so the response schemas describe them without being used to serialise.
 */

const opt = <T extends Parameters<typeof Type.Optional>[0]>(t: T) => Type.Optional(t);

export const PostalAddressSchema = Type.Object(
  {
    "@type": Type.Literal("PostalAddress"),
    streetAddress: opt(Type.String()),
    addressLocality: opt(Type.String()),
    addressRegion: opt(Type.String()),
    postalCode: opt(Type.String()),
    addressCountry: opt(Type.String({ description: "ISO 3166-1 alpha-2 country code, e.g. GB" })),
  },
  { description: "schema.org PostalAddress" },
);

export const GeoCoordinatesSchema = Type.Object(
  {
    "@type": Type.Literal("GeoCoordinates"),
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
  },
  { description: "schema.org GeoCoordinates (WGS 84), numbers" },
);

export const OpeningHoursSpecificationSchema = Type.Object(
  {
    "@type": Type.Literal("OpeningHoursSpecification"),
    dayOfWeek: Type.Array(
      Type.Union(
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map((d) => Type.Literal(d)),
      ),
      { description: "schema.org DayOfWeek names" },
    ),
    opens: Type.String({ pattern: "^\\d{2}:\\d{2}$", description: "Local time, 24-hour HH:MM" }),
    closes: Type.String({ pattern: "^\\d{2}:\\d{2}$", description: "Local time, 24-hour HH:MM" }),
  },
  { description: "schema.org OpeningHoursSpecification" },
);

const DirectoryTermsSchema = Type.Object(
  {
    directory: Type.String({
      format: "uri",
      description: "The namespace of this platform's directory vocabulary: {BASE_URL}/api/v1/vocabulary#",
    }),
    category: Type.Literal("directory:category"),
    dateCreated: Type.Literal("directory:dateCreated"),
    dateModified: Type.Literal("directory:dateModified"),
  },
  { additionalProperties: false },
);

/**
 * A business's `@context`: a pair, written with JSON Schema 2020-12's prefixItems (OpenAPI 3.1), which TypeBox's
 * Tuple does not emit.
 */
export const BusinessContextSchema = Type.Unsafe<[string, Static<typeof DirectoryTermsSchema>]>({
  type: "array",
  prefixItems: [Type.Literal("https://schema.org"), DirectoryTermsSchema],
  items: false,
  minItems: 2,
  maxItems: 2,
  description:
    "schema.org's context, then the directory's own terms: `category`, `dateCreated` and `dateModified` are not defined for LocalBusiness in schema.org, so they are mapped to this platform's vocabulary (GET /api/v1/vocabulary).",
});

export const BusinessSchema = Type.Object(
  {
    "@context": BusinessContextSchema,
    "@type": Type.String({
      description: "The most specific schema.org type: LocalBusiness or one of its subtypes, e.g. Bakery",
      examples: ["Bakery"],
    }),
    "@id": Type.String({
      format: "uri",
      description: "Stable absolute URL of the business: {BASE_URL}/api/v1/businesses/{identifier}",
    }),
    identifier: Type.String({
      pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$",
      description: "The canonical id (URL-safe slug), used as {id} in the single-business path",
    }),
    name: Type.String(),
    category: Type.String({
      description:
        "Human-readable display category, filterable with `category`. The directory's own term (directory:category), not schema:category",
    }),
    description: opt(Type.String()),
    address: opt(PostalAddressSchema),
    geo: opt(GeoCoordinatesSchema),
    telephone: opt(Type.String()),
    email: opt(Type.String({ format: "email" })),
    url: opt(Type.String({ format: "uri", description: "The business's own website" })),
    image: opt(Type.String({ format: "uri" })),
    sameAs: opt(Type.Array(Type.String({ format: "uri" }))),
    openingHoursSpecification: opt(Type.Array(OpeningHoursSpecificationSchema)),
    mainEntityOfPage: Type.String({ format: "uri", description: "The business's page in the directory" }),
    dateCreated: Type.String({
      format: "date-time",
      description: "When the business was first listed (UTC). The directory's own term (directory:dateCreated)",
    }),
    dateModified: Type.String({
      format: "date-time",
      description: "When the entry last changed (UTC). The directory's own term (directory:dateModified)",
    }),
  },
  {
    title: "LocalBusiness",
    description:
      "A directory entry as schema.org LocalBusiness JSON-LD. Fields without a value are left out. Dates are UTC. Every property is a schema.org property defined for LocalBusiness (or for the nested object's type), except category, dateCreated and dateModified, which the @context maps to this platform's vocabulary.",
  },
);

export const VocabularySchema = Type.Object(
  {
    "@context": Type.Object({ rdf: Type.String(), rdfs: Type.String(), schema: Type.String() }),
    "@id": Type.String({ format: "uri", description: "{BASE_URL}/api/v1/vocabulary" }),
    "rdfs:comment": Type.String(),
    "@graph": Type.Array(
      Type.Object({
        "@id": Type.String({
          format: "uri",
          description: "The term's IRI, e.g. {BASE_URL}/api/v1/vocabulary#category",
        }),
        "@type": Type.Literal("rdf:Property"),
        "rdfs:label": Type.String(),
        "rdfs:comment": Type.String(),
        "schema:domainIncludes": Type.Object({ "@id": Type.String() }),
        "schema:rangeIncludes": Type.Object({ "@id": Type.String() }),
        "rdfs:subPropertyOf": opt(Type.Object({ "@id": Type.String({ format: "uri" }) })),
      }),
    ),
  },
  {
    title: "DirectoryVocabulary",
    description:
      "This platform's own vocabulary (RDFS as JSON-LD): the terms of a business that schema.org does not define for LocalBusiness.",
  },
);

export const ItemListSchema = Type.Object(
  {
    "@context": Type.Literal("https://schema.org"),
    "@type": Type.Literal("ItemList"),
    "@id": Type.String({ format: "uri", description: "The absolute URL of this list, query included" }),
    numberOfItems: Type.Integer({ minimum: 0 }),
    itemListElement: Type.Array(
      Type.Object({
        "@type": Type.Literal("ListItem"),
        position: Type.Integer({ minimum: 1, description: "1-based position in the list" }),
        item: BusinessSchema,
      }),
    ),
  },
  {
    title: "ItemList",
    description: "A schema.org ItemList of every matching business, ordered by identifier. The list is not paginated.",
  },
);

export const TombstoneSchema = Type.Object(
  {
    "@id": Type.String({ format: "uri" }),
    identifier: Type.String(),
    dateDeleted: Type.String({ format: "date-time", description: "When the business was removed" }),
  },
  { description: "A removed business" },
);

export const DiffSchema = Type.Object(
  {
    since: Type.String({ format: "date", description: "The `since` date as asked" }),
    range: Type.Object(
      {
        from: Type.String({ format: "date-time", description: "Start of the `since` day, UTC (inclusive)" }),
        to: Type.String({
          format: "date-time",
          description: "Time of the newest change included (or `from` when nothing changed since)",
        }),
      },
      { description: "The time range the diff covers" },
    ),
    datasetVersion: Type.String({
      description: "Content version (the canonical export's ETag value) that applying this diff brings a copy to",
    }),
    schemaVersion: Type.String({ description: "SemVer of the dataset schema", examples: [DATASET_SCHEMA_VERSION] }),
    counts: Type.Object({ added: Type.Integer(), updated: Type.Integer(), removed: Type.Integer() }),
    added: Type.Array(BusinessSchema, { description: "Businesses created (or re-created) in the range" }),
    updated: Type.Array(BusinessSchema, { description: "Businesses changed in the range, as they are now" }),
    removed: Type.Array(TombstoneSchema, { description: "Businesses deleted in the range (tombstones)" }),
  },
  {
    title: "BusinessDiff",
    description:
      "What changed since the start of a UTC day. Applying it (upsert added and updated by identifier, delete removed) brings a copy taken at or after that day to datasetVersion. Ids appear in at most one of the three lists.",
  },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: "about:blank" }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String({ description: "What went wrong and how to put it right" }),
    code: Type.String({ description: "Stable error code, e.g. validation_failed, not_found, gone" }),
    instance: Type.String(),
    requestId: Type.String(),
    errors: opt(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { description: "RFC 9457 problem details (application/problem+json)" },
);

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

const etagHeader = {
  type: "string",
  description:
    'Dataset content version: the sha-256 (hex) of the canonical export bytes, quoted; "-gzip" or "-br" is appended for encoded responses, which are different bytes',
};
const cors = {
  "Access-Control-Allow-Origin": { type: "string", description: "*" },
  "Access-Control-Expose-Headers": { type: "string", description: "ETag, Last-Modified, X-Dataset-Version" },
};
const vary = { type: "string", description: "Accept-Encoding" };

/** OpenAPI response headers of a prepared representation. */
export function representationHeaders(cacheControl: string, datasetVersion: boolean, lastModified = false) {
  return {
    ETag: etagHeader,
    ...(lastModified
      ? {
          "Last-Modified": {
            type: "string",
            description:
              "When the business was last changed, as an HTTP date (RFC 9110 IMF-fixdate); send it back in If-Modified-Since for a 304 (If-None-Match, when sent, decides instead).",
          },
        }
      : {}),
    "Cache-Control": { type: "string", description: cacheControl },
    Vary: vary,
    ...(datasetVersion
      ? {
          "X-Dataset-Version": {
            type: "string",
            description: `SemVer of the dataset schema (${DATASET_SCHEMA_VERSION})`,
          },
        }
      : {}),
    ...cors,
  };
}

export function notModified(cacheControl: string, datasetVersion: boolean, lastModified = false) {
  return {
    description: lastModified
      ? "Not Modified: If-None-Match matched the current ETag (weak comparison; `*` matches), or, without If-None-Match, the business did not change since If-Modified-Since. Carries the headers a 200 would."
      : "Not Modified: If-None-Match matched the current ETag (weak comparison; `*` matches). Carries the headers a 200 would.",
    type: "null",
    headers: representationHeaders(cacheControl, datasetVersion, lastModified),
  };
}

export const problems = {
  badRequest: problem("Invalid parameters; `errors` names each field"),
  notFound: problem("No business has this id"),
  gone: problem("The business was removed from the directory"),
};

export const ListQuery = Type.Object({
  category: opt(
    Type.String({
      maxLength: 200,
      description: "Display category, matched exactly but case- and accent-insensitively",
      examples: ["Food and drink"],
    }),
  ),
  schemaType: opt(
    Type.String({
      maxLength: 200,
      // Every schema.org class (the pinned vocabulary), or empty (no filter). Other spellings of a class (any case,
      // a schema: prefix or the IRI) are read as the class before this check.
      enum: ["", ...schemaClassNames],
      description:
        "schema.org type name (case-insensitive; a schema: prefix or https://schema.org/ IRI is accepted and read as the listed name). Matches the type and all its subtypes: FoodEstablishment finds Bakery and CafeOrCoffeeShop; a type no business has gives an empty list. A name that is not a schema.org type is a 400.",
      examples: ["FoodEstablishment"],
    }),
  ),
  q: opt(
    Type.String({
      maxLength: 200,
      description:
        'Free text, at most 200 characters (longer is a 400). Full-text search: every word must occur in the name, category, type (in words, such as "Bar or pub" or "Plumber"), description or address; case, accents and plurals are folded ("pubs" finds pub, "cafe" finds café). Quotes, operators and other search syntax are read as plain text. Results stay in identifier order.',
      examples: ["sourdough"],
    }),
  ),
});

export const IdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: "The canonical business id (URL-safe slug)" }),
});

export const DiffQuery = Type.Object({
  since: Type.String({
    format: "date",
    // Years 0001–9999, which both databases store (core/calendar.ts).
    pattern: "^(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}$",
    maxLength: 10,
    description:
      "Required. A calendar date YYYY-MM-DD (ISO 8601, years 0001 to 9999); changes from 00:00 UTC that day onwards are returned. Missing or not a real date is a 400.",
    examples: ["2026-11-01"],
  }),
});
