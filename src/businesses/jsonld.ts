import type { BusinessRecord } from "./model.js";

/** schema.org's JSON-LD context: the context of the list envelopes, whose terms are all schema.org's. */
export const SCHEMA_ORG_CONTEXT = "https://schema.org";

/** Where the directory's own vocabulary is served (under /api/v1); its terms are `{BASE_URL}${VOCABULARY_PATH}#term`. */
export const VOCABULARY_PATH = "/api/v1/vocabulary";

/**
 * The directory's fields that schema.org does not define for LocalBusiness (schema.org's `category` is for products,
 * offers and services; `dateCreated` and `dateModified` are for creative works). A business keeps these JSON keys,
 * and its `@context` maps them to this platform's vocabulary, served at VOCABULARY_PATH, instead of to schema.org
 * terms they would misuse.
 */
export const DIRECTORY_TERMS = {
  category: {
    label: "category",
    comment:
      "The directory's human-readable display category of the business, e.g. \"Food and drink\" (filterable with the API's `category` parameter). Not schema:category, which schema.org defines for products, offers and services only.",
    range: "Text",
  },
  dateCreated: {
    label: "date created",
    comment:
      "When the business was first listed in this directory (UTC, ISO 8601). schema:dateCreated is defined for creative works only.",
    range: "DateTime",
    subPropertyOf: "http://purl.org/dc/terms/created",
  },
  dateModified: {
    label: "date modified",
    comment:
      "When the directory entry last changed (UTC, ISO 8601). schema:dateModified is defined for creative works only.",
    range: "DateTime",
    subPropertyOf: "http://purl.org/dc/terms/modified",
  },
} as const;

/** The namespace of the directory's own terms: `{BASE_URL}/api/v1/vocabulary#`. */
export function vocabularyNamespace(baseUrl: string): string {
  return `${trimSlash(baseUrl)}${VOCABULARY_PATH}#`;
}

/** The JSON-LD context every business carries: schema.org's, with the directory's own terms mapped to their IRIs. */
export function businessContext(baseUrl: string): [string, Record<string, string>] {
  const terms: Record<string, string> = { directory: vocabularyNamespace(baseUrl) };
  for (const term of Object.keys(DIRECTORY_TERMS)) terms[term] = `directory:${term}`;
  return [SCHEMA_ORG_CONTEXT, terms];
}

/**
 * The directory's vocabulary as JSON-LD (RDFS, with schema.org's domainIncludes and rangeIncludes, as schema.org
 * describes its own terms): what VOCABULARY_PATH serves.
 */
export function vocabularyDocument(baseUrl: string): Record<string, unknown> {
  const ns = vocabularyNamespace(baseUrl);
  return {
    "@context": {
      rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
      rdfs: "http://www.w3.org/2000/01/rdf-schema#",
      schema: "http://schema.org/",
    },
    "@id": `${trimSlash(baseUrl)}${VOCABULARY_PATH}`,
    "rdfs:comment":
      "Terms of this platform's business directory that schema.org does not define for LocalBusiness. Every business's @context maps its keys category, dateCreated and dateModified to them.",
    "@graph": Object.entries(DIRECTORY_TERMS).map(([term, d]) => ({
      "@id": `${ns}${term}`,
      "@type": "rdf:Property",
      "rdfs:label": d.label,
      "rdfs:comment": d.comment,
      "schema:domainIncludes": { "@id": "schema:LocalBusiness" },
      "schema:rangeIncludes": { "@id": `schema:${d.range}` },
      ...("subPropertyOf" in d ? { "rdfs:subPropertyOf": { "@id": d.subPropertyOf } } : {}),
    })),
  };
}

/** The stable absolute @id of a business: its API address under BASE_URL. */
export function businessIri(baseUrl: string, id: string): string {
  return `${trimSlash(baseUrl)}/api/v1/businesses/${encodeURIComponent(id)}`;
}

/** The human page of a business. */
export function businessPageUrl(baseUrl: string, id: string): string {
  return `${trimSlash(baseUrl)}/businesses/${encodeURIComponent(id)}`;
}

export function trimSlash(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** A business as schema.org JSON-LD (with the directory's own terms for what schema.org lacks); the key order is fixed, so the bytes are canonical. Empty fields are left out. */
export function businessJsonLd(b: BusinessRecord, baseUrl: string): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    "@context": businessContext(baseUrl),
    "@type": b.schemaType,
    "@id": businessIri(baseUrl, b.id),
    identifier: b.id,
    name: b.name,
    category: b.category,
  };
  if (b.description) doc.description = b.description;
  const address = Object.entries(b.address).filter(([, v]) => v !== null && v !== "");
  if (address.length > 0) doc.address = { "@type": "PostalAddress", ...Object.fromEntries(address) };
  if (b.geo) doc.geo = { "@type": "GeoCoordinates", latitude: b.geo.latitude, longitude: b.geo.longitude };
  if (b.telephone) doc.telephone = b.telephone;
  if (b.email) doc.email = b.email;
  if (b.url) doc.url = b.url;
  if (b.image) doc.image = b.image;
  if (b.sameAs.length > 0) doc.sameAs = b.sameAs;
  if (b.openingHours.length > 0) {
    doc.openingHoursSpecification = b.openingHours.map((h) => ({
      "@type": "OpeningHoursSpecification",
      dayOfWeek: h.dayOfWeek,
      opens: h.opens,
      closes: h.closes,
    }));
  }
  doc.mainEntityOfPage = businessPageUrl(baseUrl, b.id);
  doc.dateCreated = b.createdAt;
  doc.dateModified = b.updatedAt;
  return doc;
}

/** JSON for a `<script type="application/ld+json">` block: `<` is escaped so the text can never close the script. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
