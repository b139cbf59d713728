// Regenerates the offline schema.org files from schema.org's own vocabulary in N-Quads form.
//
//   npm pack @zazuko/rdf-vocabularies@2023.1.19 && tar xzf zazuko-rdf-vocabularies-2023.1.19.tgz
//   node src/businesses/schema-org/generate.mjs package/ontologies/schema.nq
//   npx prettier --write src/businesses/schema-org/types.json
//
// The pinned input: package/ontologies/schema.nq of that release, sha-256
// 3522ca216d7f7862df4b1707b602310670391ac3db9b443324c01ffee39c2d2a (the file is dated 2022-10-12). The script refuses
// any other file, so every generated file describes the same schema.org release.
//
// schema.org has no AntiqueStore (the demo village uses it); the API publishes such rows as LocalBusiness.
//
// Writes:
// - src/businesses/schema-org/types.json: every schema.org class (attic excluded) with its direct superclasses,
//   used at run time for `schemaType` subtype matching;
// - test/fixtures/schema-org/context.jsonld: a JSON-LD context built the way schema.org builds its published
//   context (@vocab plus one term per class and property; URL-valued properties coerced to @id, Date/DateTime
//   typed), used by the contract tests to expand responses without the network;
// - test/fixtures/schema-org/domains.json: every property (attic excluded) with its schema:domainIncludes classes,
//   used by the contract tests to check that each property is defined for the type of the entity that carries it.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = "@zazuko/rdf-vocabularies@2023.1.19 ontologies/schema.nq (schema.org vocabulary, October 2022)";
const S = "http://schema.org/";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class";
const RDF_PROPERTY = "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property";
const SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf";

const file = process.argv[2];
if (!file) {
  console.error("usage: node generate.mjs path/to/schema.nq");
  process.exit(2);
}
const PINNED_SHA256 = "3522ca216d7f7862df4b1707b602310670391ac3db9b443324c01ffee39c2d2a";
const digest = createHash("sha256").update(readFileSync(file)).digest("hex");
if (digest !== PINNED_SHA256) {
  console.error(`${file} is not the pinned schema.nq (sha-256 ${digest}, expected ${PINNED_SHA256})`);
  process.exit(1);
}
const quad = /^<([^>]+)> <([^>]+)> (?:<([^>]+)>|"(?:[^"\\]|\\.)*"(?:\S*)) <[^>]+> \.$/;
const classes = new Map();
const properties = new Map();
const attic = new Set();
const types = new Map();
const ranges = new Map();
const domains = new Map();
const local = (iri) => (iri.startsWith(S) ? iri.slice(S.length) : null);
for (const line of readFileSync(file, "utf8").split("\n")) {
  const m = quad.exec(line);
  if (!m) continue;
  const [, s, p, o] = m;
  const name = local(s);
  if (!name) continue;
  if (p === RDF_TYPE && o === RDFS_CLASS) classes.set(name, classes.get(name) ?? []);
  if (p === RDF_TYPE && o === RDF_PROPERTY) properties.set(name, true);
  if (p === RDF_TYPE && o) types.set(name, [...(types.get(name) ?? []), o]);
  if (p === SUBCLASS && o && local(o)) {
    const list = classes.get(name) ?? [];
    list.push(local(o));
    classes.set(name, list);
  }
  if (p === `${S}isPartOf` && o?.includes("attic.schema.org")) attic.add(name);
  if (p === `${S}rangeIncludes` && o && local(o)) ranges.set(name, [...(ranges.get(name) ?? []), local(o)]);
  if (p === `${S}domainIncludes` && o && local(o)) domains.set(name, [...(domains.get(name) ?? []), local(o)]);
}
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");

const classOut = {};
for (const name of [...classes.keys()].sort()) {
  if (attic.has(name)) continue;
  classOut[name] = [...new Set(classes.get(name))].filter((c) => !attic.has(c)).sort();
}
writeFileSync(join(here, "types.json"), `${JSON.stringify({ source: SOURCE, classes: classOut })}\n`);

const context = { "@vocab": S, schema: S };
for (const name of Object.keys(classOut)) context[name] = { "@id": `schema:${name}` };
for (const name of [...properties.keys()].sort()) {
  if (attic.has(name)) continue;
  const r = ranges.get(name) ?? [];
  const term = { "@id": `schema:${name}` };
  if (r.includes("URL") && !r.includes("Text")) term["@type"] = "@id";
  else if (r.length === 1 && r[0] === "Date") term["@type"] = "schema:Date";
  else if (r.length === 1 && r[0] === "DateTime") term["@type"] = "schema:DateTime";
  context[name] = term;
}
// Enumeration members (e.g. Monday) are named individuals, not classes; they expand through @vocab.
writeFileSync(
  join(root, "test", "fixtures", "schema-org", "context.jsonld"),
  `${JSON.stringify({ "@context": context, "x-source": SOURCE })}\n`,
);
console.log(`${Object.keys(classOut).length} classes, ${properties.size} properties`);

const domainOut = {};
for (const name of [...properties.keys()].sort()) {
  if (attic.has(name)) continue;
  domainOut[name] = [...new Set(domains.get(name) ?? [])].filter((c) => !attic.has(c)).sort();
}
writeFileSync(
  join(root, "test", "fixtures", "schema-org", "domains.json"),
  `${JSON.stringify({ source: SOURCE, properties: domainOut })}\n`,
);
