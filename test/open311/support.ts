import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import type { NewReport } from "../../src/core/db/schema.js";
import { Discovery, Open311Errors, TokenResponse } from "../../src/open311/schemas.js";

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = join(here, "..", "fixtures", "open311-schemas");

const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const name of ["request", "requests", "service", "services", "service-definition"]) {
  const schema = JSON.parse(readFileSync(join(schemaDir, `${name}.json`), "utf8")) as Record<string, unknown>;
  // draft-04 `id` so the relative $refs ("request.json") resolve.
  ajv.addSchema({ ...schema, id: `${name}.json` });
}
// The public schemas cover services, definitions and requests; discovery, errors, POST answers and tokens are
// checked against the standard's shapes as written in src/open311/schemas.ts.
ajv.addSchema({ ...Discovery, id: "discovery.json" });
ajv.addSchema({ ...Open311Errors, id: "errors.json" });
ajv.addSchema({ ...TokenResponse, id: "tokens.json" });
ajv.addSchema({
  id: "created-requests.json",
  type: "array",
  minItems: 1,
  items: {
    type: "object",
    required: ["service_request_id"],
    properties: {
      service_request_id: { type: "string" },
      service_notice: { type: ["string", "null"] },
      account_id: { type: ["string", "null"] },
    },
    additionalProperties: false,
  },
});

export type Open311Schema =
  "services" | "service-definition" | "requests" | "discovery" | "errors" | "tokens" | "created-requests";

/** Asserts that a JSON body validates against the Open311 schema of that name. */
export function expectValid(schema: Open311Schema, body: unknown): void {
  const validate = ajv.getSchema(`${schema}.json`);
  if (!validate) throw new Error(`no schema ${schema}`);
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${schema}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}

// --- A strict little XML reader for the subset Open311 uses (elements, text, entities; no attributes). --------

export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_m, e: string) => {
    if (e.startsWith("#x") || e.startsWith("#X")) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITIES[e] ?? "";
  });
}

/** Parses an XML document; throws on anything not well-formed (mismatched tags, stray `<` or `&`, two roots). */
export function parseXml(xml: string): XmlElement {
  const decl = /^<\?xml version="1\.0" encoding="utf-8"\?>\s*/i.exec(xml);
  if (!decl) throw new Error("missing XML declaration with encoding utf-8");
  let pos = decl[0].length;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)\s*(\/?)>/y;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (pos < xml.length) {
    const lt = xml.indexOf("<", pos);
    const text = xml.slice(pos, lt === -1 ? xml.length : lt);
    if (/[<>]/.test(text) || /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.test(text)) {
      throw new Error(`bad text at ${pos}`);
    }
    const top = stack.at(-1);
    if (text.trim() !== "") {
      if (!top) throw new Error("text outside the root element");
      top.text += decode(text);
    }
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(xml);
    if (!m) throw new Error(`bad tag at ${lt}: ${xml.slice(lt, lt + 40)}`);
    const [, close, name, selfClose] = m as unknown as [string, string, string, string];
    if (close) {
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> does not close <${open?.name}>`);
    } else {
      const el: XmlElement = { name, children: [], text: "" };
      if (top) top.children.push(el);
      else if (root) throw new Error("two root elements");
      else root = el;
      if (!selfClose) stack.push(el);
    }
    pos = tag.lastIndex;
  }
  if (stack.length > 0 || !root) throw new Error("unclosed elements");
  return root;
}

/** The standard's list containers and the name of their items (GeoReport v2 and Service Discovery pages). */
const LISTS: Record<string, string> = {
  services: "service",
  attributes: "attribute",
  values: "value",
  service_requests: "request",
  errors: "error",
  endpoints: "endpoint",
  formats: "format",
};

type Tree = string | Tree[] | { [k: string]: Tree };

/** XML → JSON by the Spark convention, with every leaf as text (empty element → ""). */
export function sparkFromXml(el: XmlElement): Tree {
  const item = LISTS[el.name];
  if (item) {
    for (const c of el.children) if (c.name !== item) throw new Error(`<${el.name}> holds <${c.name}>, not <${item}>`);
    return el.children.map(sparkFromXml);
  }
  if (el.children.length === 0) return el.text;
  const out: Record<string, Tree> = {};
  for (const c of el.children) {
    if (c.name in out) throw new Error(`<${el.name}> repeats <${c.name}>`);
    out[c.name] = sparkFromXml(c);
  }
  return out;
}

/** A JSON body with every leaf as text, null as "" (how it reads in XML). */
export function textLeaves(value: unknown): Tree {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(textLeaves);
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, textLeaves(v)]));
  }
  return String(value);
}

/** GET a URL in JSON and in XML and assert both are the same tree under the Spark convention. */
export async function getBoth(
  app: FastifyInstance,
  url: string,
  root: string,
): Promise<{ json: unknown; status: number; xml: string }> {
  const jsonRes = await app.inject({ method: "GET", url: url.replace("{format}", "json") });
  const xmlRes = await app.inject({ method: "GET", url: url.replace("{format}", "xml") });
  expect(jsonRes.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(xmlRes.headers["content-type"]).toBe("text/xml; charset=utf-8");
  expect(xmlRes.statusCode).toBe(jsonRes.statusCode);
  const json: unknown = jsonRes.json();
  const tree = parseXml(xmlRes.body);
  expect(tree.name).toBe(root);
  expect(sparkFromXml(tree)).toEqual(textLeaves(json));
  return { json, status: jsonRes.statusCode, xml: xmlRes.body };
}

/** Inserts a report straight into the database (a factory for query tests); returns its id and reference. */
export async function insertReport(
  app: FastifyInstance,
  overrides: Partial<NewReport> & { reference: string },
): Promise<{ id: number; reference: string }> {
  const at = app.civic.now().toISOString();
  const row = await app.civic.database.db
    .insertInto("reports")
    .values({
      category_code: "pothole",
      title: "Test report",
      description: "A test report.",
      latitude: 50.9862,
      longitude: -2.0437,
      location_text: null,
      place_id: null,
      address_id: null,
      attributes: "{}",
      status: "open",
      visibility: "public",
      share_contact: 0,
      source: "web",
      created_at: at,
      updated_at: at,
      ...overrides,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, reference: overrides.reference };
}

/** A multipart/form-data body for app.inject: text fields and files. */
export function multipart(
  fields: [string, string][],
  files: { name: string; filename: string; type: string; data: Buffer }[] = [],
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----open311test${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`,
      ),
      f.data,
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** A form-encoded body from pairs (keys may repeat, e.g. attribute[x][]). */
export function form(pairs: [string, string][]): { payload: string; headers: Record<string, string> } {
  return {
    payload: new URLSearchParams(pairs).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
  };
}
