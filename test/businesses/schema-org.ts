import { readFileSync } from "node:fs";
import jsonld from "jsonld";
import types from "../../src/businesses/schema-org/types.json" with { type: "json" };

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
 * Every problem in an expanded document: a @type that is not a schema.org class, or a property that is not a
 * schema.org property. Empty when the document is valid schema.org.
 */
export function schemaOrgProblems(expanded: unknown, path = "$"): string[] {
  const problems: string[] = [];
  if (Array.isArray(expanded)) {
    expanded.forEach((e, i) => {
      problems.push(...schemaOrgProblems(e, `${path}[${i}]`));
    });
    return problems;
  }
  if (typeof expanded !== "object" || expanded === null) return problems;
  for (const [key, value] of Object.entries(expanded)) {
    if (key === "@type") {
      for (const t of value as string[]) {
        if (!t.startsWith(SCHEMA) || !classes.has(t.slice(SCHEMA.length))) problems.push(`${path}: @type ${t}`);
      }
    } else if (key.startsWith("@")) {
      if (key !== "@id" && key !== "@value" && key !== "@list") problems.push(`${path}: keyword ${key}`);
    } else if (!key.startsWith(SCHEMA) || !properties.has(key.slice(SCHEMA.length))) {
      problems.push(`${path}: property ${key}`);
    } else problems.push(...schemaOrgProblems(value, `${path}.${key.slice(SCHEMA.length)}`));
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
