import { readFileSync } from "node:fs";
import jsonld from "jsonld";
import types from "../../src/businesses/schema-org/types.json" with { type: "json" };
import { selfAndAncestors } from "../../src/businesses/vocabulary.js";
import domainsFile from "../fixtures/schema-org/domains.json" with { type: "json" };

/**
 * Expands JSON-LD with schema.org's context loaded from a bundled copy (test/fixtures/schema-org/context.jsonld,
 * generated from schema.org's vocabulary by src/businesses/schema-org/generate.mjs): no network.
 */
const contextDocument = JSON.parse(
  readFileSync(new URL("../fixtures/schema-org/context.jsonld", import.meta.url), "utf8"),
) as { "@context": Record<string, unknown> };

const SCHEMA = "http://schema.org/";
const classes = new Set(Object.keys(types.classes));
const properties = new Set(Object.keys(contextDocument["@context"]).filter((k) => /^[a-z]/.test(k) && k !== "schema"));

const CONTEXT_URLS = new Set(["https://schema.org", "https://schema.org/", "http://schema.org", "http://schema.org/"]);

async function documentLoader(url: string) {
  if (!CONTEXT_URLS.has(url)) throw new Error(`no network in tests: refusing to load ${url}`);
  return { contextUrl: undefined, documentUrl: url, document: contextDocument };
}

export type Expanded = Record<string, unknown>[];

/** Expands a JSON-LD document offline. */
export async function expand(doc: unknown): Promise<Expanded> {
  const options = { documentLoader } as unknown as Parameters<typeof jsonld.expand>[1];
  return (await jsonld.expand(doc as object, options)) as Expanded;
}

/**
 * The properties of schema.org (pinned: see `source` in test/fixtures/schema-org/domains.json, generated with the
 * other files by src/businesses/schema-org/generate.mjs) with their schema:domainIncludes classes.
 */
const schemaDomains: Readonly<Record<string, readonly string[]>> = domainsFile.properties;

/** Where the vocabulary files come from (the same pinned release for classes, context and domains). */
export const pinnedVocabulary = { classes: types.source, domains: domainsFile.source };

/**
 * Terms of another vocabulary an entity may use (this platform's own), by full IRI, with their domain classes
 * (schema.org class names).
 */
export type OwnTerms = ReadonlyMap<string, readonly string[]>;

/** Reads a vocabulary document in the shape GET /api/v1/vocabulary serves, after expansion. */
export async function ownTerms(vocabulary: unknown): Promise<OwnTerms> {
  const expanded = await expand(vocabulary);
  const nodes = expanded.flatMap((n) => (n["@graph"] as Record<string, unknown>[] | undefined) ?? [n]);
  const terms = new Map<string, string[]>();
  for (const node of nodes) {
    const domains = node[`${SCHEMA}domainIncludes`] as { "@id": string }[] | undefined;
    if (!domains) continue;
    terms.set(
      node["@id"] as string,
      domains.map((d) => d["@id"].replace(/^https?:\/\/schema\.org\//, "")),
    );
  }
  return terms;
}

/**
 * Every problem in an expanded document: a @type that is not a schema.org class; a property that is neither a
 * schema.org property nor one of `own`; or a property not defined for the type of the node that carries it, that is
 * none of the node's types is one of the property's schema:domainIncludes classes or a subclass of one
 * (rdfs:subClassOf, transitively). Nested nodes (address, geo, opening hours, list items) are checked the same way.
 * Empty when the document is valid schema.org.
 */
export function schemaOrgProblems(expanded: unknown, own: OwnTerms = new Map(), path = "$"): string[] {
  const problems: string[] = [];
  if (Array.isArray(expanded)) {
    expanded.forEach((e, i) => {
      problems.push(...schemaOrgProblems(e, own, `${path}[${i}]`));
    });
    return problems;
  }
  if (typeof expanded !== "object" || expanded === null) return problems;
  const node = expanded as Record<string, unknown>;
  if ("@value" in node) return problems;
  const nodeTypes = ((node["@type"] as string[] | undefined) ?? []).map((t) => t.slice(SCHEMA.length));
  for (const [key, value] of Object.entries(node)) {
    if (key === "@type") {
      for (const t of value as string[]) {
        if (!t.startsWith(SCHEMA) || !classes.has(t.slice(SCHEMA.length))) problems.push(`${path}: @type ${t}`);
      }
      continue;
    }
    if (key.startsWith("@")) {
      if (key !== "@id" && key !== "@list") problems.push(`${path}: keyword ${key}`);
      else if (key === "@list") problems.push(...schemaOrgProblems(value, own, `${path}.@list`));
      continue;
    }
    const name = key.startsWith(SCHEMA) ? key.slice(SCHEMA.length) : key;
    const domains = key.startsWith(SCHEMA) && properties.has(name) ? schemaDomains[name] : own.get(key);
    if (!domains) {
      problems.push(`${path}: property ${key} is not in the vocabulary`);
      continue;
    }
    if (nodeTypes.length === 0) problems.push(`${path}: property ${name} on a node without @type`);
    else if (!nodeTypes.some((t) => domains.some((d) => selfAndAncestors(t).has(d)))) {
      problems.push(`${path}: ${name} is not defined for ${nodeTypes.join(", ")} (its domain: ${domains.join(", ")})`);
    }
    problems.push(...schemaOrgProblems(value, own, `${path}.${name}`));
  }
  return problems;
}

/** All @type values in an expanded document, without the schema.org prefix. */
export function expandedTypes(expanded: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (k === "@type") found.push(...(child as string[]).map((t) => t.replace(SCHEMA, "")));
        else walk(child);
      }
    }
  };
  walk(expanded);
  return found;
}
