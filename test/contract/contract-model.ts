/**
 * The OpenAPI description as a tested contract, shared by test/contract/openapi-contract.test.ts (fixed seed, small
 * budget, in `npm test`) and bench/contract (long runs, any seed). For every operation of the served description it
 * draws requests from the description alone: valid ones (every parameter and body field from its schema, with edge
 * values) and invalid ones (one constraint of one parameter or field broken: wrong type, out of range, too long or
 * short, pattern, enum or format, a required one left out). The answer must be documented for the operation (its
 * status, its content type, a body that validates against the schema given for both, the headers' schemas); a valid
 * request must never be refused as invalid (400 or 422), and an invalid one must get a documented 4xx.
 *
 * The only knowledge that does not come from the description is what a client learns from the API itself: ids
 * that exist (businesses, reports, services, places), each service's definition (its required questions), and the
 * credentials a client holds (an API key, its own site's origin for the app endpoint).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { createApiKey } from "../../src/open311/keys.js";

// --- The description ---------------------------------------------------------------------------------------------

export type Schema = {
  type?: string | string[];
  $ref?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  examples?: unknown[];
  [key: string]: unknown;
};

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: Schema;
}
export interface MediaType {
  schema?: Schema;
}
export interface Response {
  description: string;
  headers?: Record<string, { required?: boolean; schema?: Schema }>;
  content?: Record<string, MediaType>;
}
export interface OperationObject {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  security?: Record<string, string[]>[];
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { in: string; name: string }> };
}

/** One operation of the description. */
export interface Operation {
  method: string;
  path: string;
  id: string;
  op: OperationObject;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

export function operations(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      out.push({ method: method.toUpperCase(), path, id: op.operationId ?? `${method} ${path}`, op });
    }
  }
  return out;
}

/** The description as served, as a client would read it. */
export async function servedDescription(app: FastifyInstance): Promise<OpenApiDocument> {
  const res = await app.inject("/openapi.json");
  return JSON.parse(res.body) as OpenApiDocument;
}

/** What a client knows besides the description: ids that exist and its credentials. */
export interface ClientKnowledge {
  /** Values that exist, by parameter or field name (business ids, references, service codes, place ids …). */
  known: Record<string, string[]>;
  /** Each service's questions, from its service definition: what a valid POST must answer. */
  questions: Record<string, { code: string; datatype: string; required: boolean; values: string[] }[]>;
  apiKey: string;
  /** The site's own origin (the app endpoint takes requests from its own pages only). */
  origin: string;
}

/**
 * What a client of this app knows: an API key of its own, the site's origin, and what the API tells (services,
 * businesses, reports); the gazetteer's place ids and the businesses' display categories, as the site's pages show.
 */
export async function clientKnowledge(app: FastifyInstance): Promise<ClientKnowledge> {
  const db = app.civic.database.db;
  const apiKey = (await createApiKey(db, "Contract tester", new Date())).key;
  const places = (await db.selectFrom("places").select("id").execute()).map((p) => p.id);
  const categories = await db.selectFrom("businesses").select("category").distinct().execute();
  return learnFromApi(app, {
    apiKey,
    origin: app.civic.config.baseUrl,
    known: {
      address_id: places,
      place: places,
      "GET /api/v1/businesses category": categories.map((c) => c.category).filter((c): c is string => !!c),
    },
  });
}

/** Reads what a client would learn from the API: the services and their definitions, the businesses, reports. */
export async function learnFromApi(
  app: FastifyInstance,
  extra: Omit<ClientKnowledge, "known" | "questions"> & { known?: Record<string, string[]> },
): Promise<ClientKnowledge> {
  const get = async <T>(url: string) => JSON.parse((await app.inject(url)).body) as T;
  const services = await get<{ service_code: string; metadata: boolean }[]>("/api/v2/services.json");
  const questions: ClientKnowledge["questions"] = {};
  for (const s of services) {
    const def = await get<{
      attributes: {
        code: string;
        datatype: string;
        required: boolean;
        variable: boolean;
        values?: { key: string }[];
      }[];
    }>(`/api/v2/services/${encodeURIComponent(s.service_code)}.json`);
    questions[s.service_code] = def.attributes
      .filter((a) => a.variable)
      .map((a) => ({
        code: a.code,
        datatype: a.datatype,
        required: a.required,
        values: (a.values ?? []).map((v) => v.key),
      }));
  }
  const businesses = await get<{ itemListElement: { item: { identifier: string; "@type": string } }[] }>(
    "/api/v1/businesses",
  );
  const requests = await get<{ service_request_id: string }[]>("/api/v2/requests.json");
  const codes = services.map((s) => s.service_code);
  const references = requests.map((r) => r.service_request_id);
  return {
    ...extra,
    known: {
      id: businesses.itemListElement.map((e) => e.item.identifier),
      schemaType: [...new Set(businesses.itemListElement.map((e) => e.item["@type"]))],
      service_code: codes,
      "POST /api/app/reports category": codes,
      service_request_id: references,
      token: references,
      ...extra.known,
    },
    questions,
  };
}

// --- Drawing values from schemas ----------------------------------------------------------------------------

/** Resolves a local $ref (`#/components/schemas/X`). */
export function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(doc, target);
}

const typeOf = (s: Schema): string | undefined => (Array.isArray(s.type) ? s.type[0] : s.type);

/** Code points, as JSON Schema counts string length. */
const length = (s: string) => [...s].length;

const EDGE_TEXT = [
  "a",
  " ",
  "0",
  "é",
  "Ærø",
  "🦆",
  "中文",
  "a b",
  "a+b",
  "a&b=c",
  "50%",
  "?#",
  "/",
  "..",
  "'\"",
  "a\tb",
  "line\nbreak",
  "\u00a0",
  "\u200b",
  "\ufeff",
  "e\u0301",
];

function stringFits(s: Schema, value: string): boolean {
  const n = length(value);
  if (s.minLength !== undefined && n < s.minLength) return false;
  if (s.maxLength !== undefined && n > s.maxLength) return false;
  if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(value)) return false;
  if (/\p{Cs}/u.test(value)) return false;
  return true;
}

const pad2 = (n: number) => String(n).padStart(2, "0");
const dateArb = fc
  .record({
    y: fc.integer({ min: 1, max: 9999 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)}`);
const recentDateArb = fc
  .date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2030-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** A value that fits a string schema: edge values, examples, random text of every kind, the longest allowed. */
function stringArb(s: Schema): fc.Arbitrary<string> {
  const max = s.maxLength ?? 300;
  const min = s.minLength ?? 0;
  if (s.format === "date") return fc.oneof(recentDateArb, dateArb).filter((v) => stringFits(s, v));
  if (s.format === "email") return fc.emailAddress().filter((v) => stringFits(s, v));
  if (s.format === "uri") return fc.webUrl().filter((v) => stringFits(s, v));
  const candidates: fc.Arbitrary<string>[] = [];
  const pattern = s.pattern;
  if (pattern !== undefined && !isTextPattern(pattern)) {
    candidates.push(fc.stringMatching(new RegExp(pattern, "u")));
  } else {
    const long = EDGE_TEXT.slice(0, 6).map((c) => c.repeat(Math.max(1, Math.floor(max / length(c)))));
    candidates.push(
      fc.constantFrom(...EDGE_TEXT, ...long, ""),
      fc.string({ maxLength: Math.min(max, 40), unit: "grapheme" }),
      fc.string({ maxLength: Math.min(max, 40), unit: "binary" }),
      fc.string({ minLength: min, maxLength: Math.min(max, 10) }),
    );
    for (const example of s.examples ?? []) if (typeof example === "string") candidates.push(fc.constant(example));
  }
  return fc.oneof(...candidates).filter((v) => stringFits(s, v));
}

/**
 * The patterns the description gives every free-text parameter (no control characters, no broken Unicode): a value
 * is drawn from all of text and kept when it matches, rather than from the pattern.
 */
function isTextPattern(pattern: string): boolean {
  return pattern.startsWith("^[^\\u0000-");
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum : -1e6);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum : 1e6);
  const fits = (n: number) =>
    (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) &&
    (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum) &&
    n >= min &&
    n <= max &&
    !Object.is(n, -0);
  if (integer) {
    const lo = Math.ceil(min);
    const hi = Math.floor(max);
    return fc.oneof(fc.constantFrom(lo, hi, lo + 1), fc.integer({ min: lo, max: hi })).filter(fits);
  }
  return fc
    .oneof(
      fc.constantFrom(min, max, (min + max) / 2, Math.round(min), Math.round(max)),
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    )
    .filter(fits);
}

/** A valid value for a schema, as the text a client sends (in a path, query, header or form field). */
export function validValue(doc: OpenApiDocument, raw: Schema): fc.Arbitrary<string> {
  const s = resolve(doc, raw);
  if (s.const !== undefined) return fc.constant(String(s.const));
  if (s.enum) return fc.constantFrom(...s.enum.map(String));
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => validValue(doc, a)));
  switch (typeOf(s)) {
    case "integer":
      return numberArb(s, true).map(String);
    case "number":
      return numberArb(s, false).map(String);
    case "boolean":
      return fc.constantFrom("true", "false");
    default:
      return stringArb(s);
  }
}

/** One broken constraint of a schema: the value and what it breaks. */
export interface Violation {
  value: string;
  breaks: string;
}

/** Every constraint of a schema a value can break, each with one value that breaks only it (as far as can be). */
export function violations(doc: OpenApiDocument, raw: Schema): Violation[] {
  const s = resolve(doc, raw);
  const out: Violation[] = [];
  const alternatives = s.anyOf ?? s.oneOf;
  const allowed = (v: string) => {
    const ajv = validatorFor(doc);
    return ajv(coerceFor(s, v), s);
  };
  if (s.enum || s.const !== undefined || alternatives) {
    for (const v of ["yaml", "", "JSON", "other"]) if (!allowed(v)) return [{ value: v, breaks: "enum" }];
    return out;
  }
  const type = typeOf(s);
  if (type === "integer" || type === "number") {
    out.push({ value: "abc", breaks: "type" });
    if (type === "integer") out.push({ value: "1.5", breaks: "type (integer)" });
    if (s.minimum !== undefined) out.push({ value: String(s.minimum - 1), breaks: "minimum" });
    if (s.exclusiveMinimum !== undefined) out.push({ value: String(s.exclusiveMinimum), breaks: "exclusiveMinimum" });
    if (s.maximum !== undefined) out.push({ value: String(s.maximum + 1), breaks: "maximum" });
    if (s.exclusiveMaximum !== undefined) out.push({ value: String(s.exclusiveMaximum), breaks: "exclusiveMaximum" });
    return out;
  }
  if (type === "boolean") return [{ value: "maybe", breaks: "type" }];
  if (s.maxLength !== undefined) out.push({ value: "a".repeat(s.maxLength + 1), breaks: "maxLength" });
  if (s.minLength !== undefined && s.minLength > 0) out.push({ value: "", breaks: "minLength" });
  if (s.pattern !== undefined) {
    // One control character (what every text pattern leaves out) and one other value the pattern refuses.
    const re = new RegExp(s.pattern, "u");
    const fits = (v: string) => !re.test(v) && (s.maxLength === undefined || length(v) <= s.maxLength);
    const control = ["a\u0000b", "\u0007", "x\u001fy", "\u007f"].find(fits);
    const other = ["x", "<b>x</b>", " ", "9999-99-99", "2026-02-30", "abc", "open,,closed", "a@b"].find(fits);
    for (const v of [control, other]) if (v !== undefined) out.push({ value: v, breaks: "pattern" });
  }
  if (s.format === "date")
    out.push({ value: "2026-02-30", breaks: "format (date)" }, { value: "yesterday", breaks: "format (date)" });
  if (s.format === "email") out.push({ value: "not-an-email", breaks: "format (email)" });
  if (s.format === "uri") out.push({ value: "not a url", breaks: "format (uri)" });
  return out.filter((v) => !allowed(v.value));
}

/** The text of a parameter as its schema reads it (query and form values are text; numbers are coerced). */
function coerceFor(s: Schema, v: string): unknown {
  const type = typeOf(s);
  if ((type === "integer" || type === "number") && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return v;
}

// --- Requests ----------------------------------------------------------------------------------------------------

export interface ContractCase {
  operation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** null: every constraint is kept; otherwise what this request breaks. */
  breaks: string | null;
}

type Fields = [string, string][];

const BOUNDARY = "----contract7MA4YWxkTrZu0gW";

function multipart(fields: Fields): Buffer {
  return Buffer.concat([
    ...fields.map(([name, value]) =>
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);
}

/** Percent-encodes text for a path segment or query value. */
const encode = (v: string) => encodeURIComponent(v);

/**
 * Fields whose description says they must name something that exists (a gazetteer place) and that are refused
 * otherwise: a client sends only values it learnt from the API.
 */
const MUST_EXIST = new Set(["address_id", "place", "POST /api/app/reports category"]);

/**
 * A valid value for a parameter or field; what the client knows exists most of the time. `scope` is the operation
 * (`POST /api/app/reports`): knowledge and MUST_EXIST entries may name a field of one operation only.
 */
function parameterValue(doc: OpenApiDocument, p: Parameter, k: ClientKnowledge, scope: string): fc.Arbitrary<string> {
  const scoped = `${scope} ${p.name}`;
  const known = k.known[scoped] ?? k.known[p.name] ?? [];
  const drawn = validValue(doc, p.schema);
  const s = resolve(doc, p.schema);
  const fitting = known.filter((v) => typeOf(s) !== "string" || stringFits(s, v));
  if (fitting.length === 0) return drawn;
  if (MUST_EXIST.has(p.name) || MUST_EXIST.has(scoped)) return fc.constantFrom(...fitting);
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...fitting) }, drawn);
}

/** A valid body field value; known values (a service code that exists) most of the time. */
function fieldValue(
  doc: OpenApiDocument,
  name: string,
  schema: Schema,
  k: ClientKnowledge,
  scope: string,
): fc.Arbitrary<string> {
  return parameterValue(doc, { name, in: "query", schema }, k, scope);
}

/** The answers a service's required questions need, from its definition. */
function answers(k: ClientKnowledge, fields: Fields): fc.Arbitrary<Fields> {
  // Open311 names a list answer `attribute[CODE][]`; the web form (and the app endpoint) repeats `attribute[CODE]`.
  const open311 = fields.some(([n]) => n === "service_code");
  const serviceCode = fields.find(([n]) => n === "service_code" || n === "category")?.[1];
  const questions = serviceCode ? (k.questions[serviceCode] ?? []) : [];
  const arbs = questions
    .filter((q) => q.required)
    .map((q): fc.Arbitrary<Fields> => {
      const name = `attribute[${q.code}]`;
      switch (q.datatype) {
        case "singlevaluelist":
          return fc.constantFrom(...q.values).map((v) => [[name, v]]);
        case "multivaluelist":
          return fc
            .subarray(q.values, { minLength: 1 })
            .map((vs) => vs.map((v): [string, string] => [open311 ? `${name}[]` : name, v]));
        case "number":
          return fc.integer({ min: 0, max: 1000 }).map((n) => [[name, String(n)]]);
        case "datetime":
          return fc.constant([[name, "2026-11-01T10:00:00Z"]]);
        default:
          return fc.constantFrom("Yes", "About a metre across", "Since last week").map((v) => [[name, v]]);
      }
    });
  return arbs.length === 0 ? fc.constant([]) : fc.tuple(...arbs).map((lists) => lists.flat());
}

interface BodyPlan {
  contentType: string;
  schema: Schema;
}

function bodyPlans(doc: OpenApiDocument, op: OperationObject): BodyPlan[] {
  return Object.entries(op.requestBody?.content ?? {}).map(([contentType, m]) => ({
    contentType,
    schema: resolve(doc, m.schema ?? {}),
  }));
}

/** One way to satisfy a body's required fields: `required`, plus one alternative of its `anyOf` (with its rules). */
interface RequiredSet {
  required: string[];
  /** What the alternative asks of its fields beyond their own schemas (address_string not blank, say). */
  properties: Record<string, Schema>;
}

/** Which properties a body must hold: `required`, plus one alternative of every `anyOf` of required sets. */
function requiredSets(s: Schema): RequiredSet[] {
  const base = s.required ?? [];
  const alternatives = (s.anyOf ?? s.oneOf ?? []).filter((a) => (a.required ?? []).length > 0);
  if (alternatives.length === 0) return [{ required: base, properties: {} }];
  return alternatives.map((alt) => ({
    required: [...base, ...(alt.required ?? [])],
    properties: alt.properties ?? {},
  }));
}

/** Body fields to send: the required ones and some optional ones, each with a valid value. */
function validFields(doc: OpenApiDocument, s: Schema, k: ClientKnowledge, scope: string): fc.Arbitrary<Fields> {
  const properties = Object.entries(s.properties ?? {}).filter(([name, p]) => {
    const r = resolve(doc, p);
    // Files and the pattern-named "attribute[CODE]" are sent by their own rules (answers below); the API key is a
    // credential, sent by the security scheme.
    return typeOf(r) !== "array" && !name.includes("[") && name !== "api_key";
  });
  const validate = validatorFor(doc);
  return fc.constantFrom(...requiredSets(s)).chain(({ required, properties: rules }) =>
    fc
      .tuple(
        ...properties.map(([name, p]) => {
          const rule = rules[name];
          const value = rule
            ? fieldValue(doc, name, p, k, scope).filter((v) => validate(coerceFor(rule, v), rule))
            : fieldValue(doc, name, p, k, scope);
          return required.includes(name) ? value.map((v) => [name, v]) : fc.option(value.map((v) => [name, v]));
        }),
      )
      .map((list) => list.filter((x): x is [string, string] => x !== null))
      .chain((fields) => withDependents(doc, s, fields, k, scope)),
  );
}

/**
 * Which properties need which others: `dependentRequired`, and `allOf` entries `{if: {required: [a]}, then:
 * {required: [b]}}` (the draft-07 way to say the same).
 */
function dependencies(s: Schema): Record<string, string[]> {
  const out: Record<string, string[]> = { ...((s.dependentRequired ?? {}) as Record<string, string[]>) };
  for (const rule of s.allOf ?? []) {
    const given = (rule.if as Schema | undefined)?.required;
    const needs = (rule.then as Schema | undefined)?.required;
    if (given?.length === 1 && given[0] && needs) out[given[0]] = [...(out[given[0]] ?? []), ...needs];
  }
  return out;
}

/** Adds what the dependencies ask for (long when lat is given, say). */
function withDependents(
  doc: OpenApiDocument,
  s: Schema,
  fields: Fields,
  k: ClientKnowledge,
  scope: string,
): fc.Arbitrary<Fields> {
  const dependent = dependencies(s);
  const names = new Set(fields.map(([n]) => n));
  const missing = [
    ...new Set(
      Object.entries(dependent)
        .filter(([n]) => names.has(n))
        .flatMap(([, needs]) => needs),
    ),
  ].filter((n) => !names.has(n));
  if (missing.length === 0) return fc.constant(fields);
  return fc
    .tuple(
      ...missing.map((n) => fieldValue(doc, n, s.properties?.[n] ?? {}, k, scope).map((v): [string, string] => [n, v])),
    )
    .map((extra) => [...fields, ...extra]);
}

function encodeBody(
  contentType: string,
  fields: Fields,
): { headers: Record<string, string>; payload: string | Buffer } {
  if (contentType === "multipart/form-data") {
    return { headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, payload: multipart(fields) };
  }
  return {
    headers: { "content-type": contentType },
    payload: fields.map(([n, v]) => `${encode(n)}=${encode(v)}`).join("&"),
  };
}

/** The credentials the operation's security asks for (the first scheme a client can satisfy). */
function credentials(doc: OpenApiDocument, op: OperationObject, k: ClientKnowledge): Record<string, string> {
  for (const requirement of op.security ?? []) {
    for (const name of Object.keys(requirement)) {
      const scheme = doc.components?.securitySchemes?.[name];
      if (scheme?.in === "header") return { [scheme.name.toLowerCase()]: k.apiKey };
    }
  }
  return {};
}

/**
 * Cross-parameter rules that schemas cannot state, as the operation's description states them: a request that
 * would break one drops the parameter that breaks it.
 */
function keepRules(query: Map<string, string>): void {
  // Open311 requests: a date window of at most 90 days, in order.
  const start = query.get("start_date");
  const end = query.get("end_date");
  if (start !== undefined && end !== undefined) {
    const days = (Date.parse(end) - Date.parse(start)) / 86_400_000;
    if (!(days >= 0 && days <= 89)) query.delete("end_date");
  }
  // Open311 requests near a place: lat and long together, radius only with them.
  if (query.has("lat") !== query.has("long")) {
    query.delete("lat");
    query.delete("long");
  }
  if (query.has("radius") && !query.has("lat")) query.delete("radius");
  // Reports map and GeoJSON: a bbox is west,south,east,north, in range and in order (else a box that is).
  const bbox = query.get("bbox")?.split(",").map(Number);
  if (bbox?.length === 4) {
    const [w, s, e, n] = bbox as [number, number, number, number];
    if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90 && w < e && s < n)) {
      query.set("bbox", "-2.0651,50.975,-2.0223,50.9974");
    }
  }
}

interface Parts {
  path: Map<string, string>;
  query: Map<string, string>;
  headers: Map<string, string>;
}

function buildCase(
  o: Operation,
  parts: Parts,
  body: { contentType: string; fields: Fields } | null,
  extraHeaders: Record<string, string>,
  breaks: string | null,
): ContractCase {
  let url = o.path;
  for (const [name, value] of parts.path) url = url.replace(`{${name}}`, encode(value));
  const query = [...parts.query].map(([n, v]) => `${encode(n)}=${encode(v)}`).join("&");
  if (query) url += `?${query}`;
  const headers: Record<string, string> = { ...extraHeaders, ...Object.fromEntries(parts.headers) };
  const encoded = body ? encodeBody(body.contentType, body.fields) : null;
  return {
    operation: `${o.method} ${o.path}`,
    method: o.method,
    url,
    headers: { ...headers, ...(encoded?.headers ?? {}) },
    ...(encoded ? { payload: encoded.payload } : {}),
    breaks,
  };
}

const scopeOf = (o: Operation) => `${o.method} ${o.path}`;

function parameters(o: Operation): Parameter[] {
  return (o.op.parameters ?? []).filter((p) => p.in !== "cookie");
}

/** Values for every parameter: required ones always, optional ones sometimes. */
function validParts(doc: OpenApiDocument, o: Operation, k: ClientKnowledge): fc.Arbitrary<Parts> {
  const params = parameters(o);
  return fc
    .tuple(
      ...params.map((p) =>
        p.required || p.in === "path"
          ? parameterValue(doc, p, k, scopeOf(o)).map((v) => ({ p, v }))
          : fc.option(
              parameterValue(doc, p, k, scopeOf(o)).map((v) => ({ p, v })),
              { freq: 2 },
            ),
      ),
    )
    .map((list) => {
      const parts: Parts = { path: new Map(), query: new Map(), headers: new Map() };
      for (const x of list) {
        if (!x) continue;
        const target = x.p.in === "path" ? parts.path : x.p.in === "query" ? parts.query : parts.headers;
        target.set(x.p.in === "header" ? x.p.name.toLowerCase() : x.p.name, x.v);
      }
      keepRules(parts.query);
      return parts;
    })
    .filter((parts) => headersSendable(parts.headers));
}

/** Header values travel as Latin-1 text without control characters (light-my-request refuses others). */
function headersSendable(headers: Map<string, string>): boolean {
  return [...headers.values()].every((v) => /^[\u0020-\u007e\u0080-\u00ff\t]*$/.test(v) && v === v.trim());
}

/** Headers every request of a client of this site carries: its own origin (the app endpoint needs it). */
const siteHeaders = (k: ClientKnowledge) => ({ origin: k.origin, "sec-fetch-site": "same-origin" });

/** Valid requests for an operation. */
export function validCase(doc: OpenApiDocument, o: Operation, k: ClientKnowledge): fc.Arbitrary<ContractCase> {
  const plans = bodyPlans(doc, o.op);
  const base = { ...siteHeaders(k), ...credentials(doc, o.op, k) };
  const parts = validParts(doc, o, k);
  if (plans.length === 0) return parts.map((p) => buildCase(o, p, null, base, null));
  return fc.constantFrom(...plans).chain((plan) =>
    fc
      .tuple(parts, validFields(doc, plan.schema, k, scopeOf(o)))
      .chain(([p, fields]) => {
        return answers(k, fields).map((extra) => ({ p, fields: [...fields, ...extra] }));
      })
      .map(({ p, fields }) => buildCase(o, p, { contentType: plan.contentType, fields }, base, null)),
  );
}

/** Invalid requests for an operation: a valid one with one constraint of one parameter or body field broken. */
export function invalidCases(
  doc: OpenApiDocument,
  o: Operation,
  k: ClientKnowledge,
): fc.Arbitrary<ContractCase> | null {
  const plans = bodyPlans(doc, o.op);
  const base = { ...siteHeaders(k), ...credentials(doc, o.op, k) };
  type Breaker = { breaks: string; apply: (parts: Parts, fields: Fields | null) => Fields | null };
  const breakers: Breaker[] = [];
  for (const p of parameters(o)) {
    const where = (parts: Parts) => (p.in === "path" ? parts.path : p.in === "query" ? parts.query : parts.headers);
    const key = p.in === "header" ? p.name.toLowerCase() : p.name;
    if (p.required && p.in !== "path") {
      breakers.push({
        breaks: `${p.in} ${p.name}: required`,
        apply: (parts, fields) => {
          where(parts).delete(key);
          return fields;
        },
      });
    }
    for (const v of violations(doc, p.schema)) {
      if (p.in === "header" && !headersSendable(new Map([["x", v.value]]))) continue;
      breakers.push({
        breaks: `${p.in} ${p.name}: ${v.breaks} (${JSON.stringify(v.value.slice(0, 40))})`,
        apply: (parts, fields) => {
          where(parts).set(key, v.value);
          return fields;
        },
      });
    }
  }
  for (const plan of plans.slice(0, 1)) {
    for (const [name, raw] of Object.entries(plan.schema.properties ?? {})) {
      if (name.includes("[")) continue;
      for (const v of violations(doc, raw)) {
        breakers.push({
          breaks: `body ${name}: ${v.breaks} (${JSON.stringify(v.value.slice(0, 40))})`,
          apply: (_parts, fields) => [...(fields ?? []).filter(([n]) => n !== name), [name, v.value]],
        });
      }
    }
    for (const required of plan.schema.required ?? []) {
      breakers.push({
        breaks: `body ${required}: required`,
        apply: (_parts, fields) => (fields ?? []).filter(([n]) => n !== required),
      });
    }
    for (const [name, needs] of Object.entries(dependencies(plan.schema))) {
      const props = plan.schema.properties ?? {};
      const value = props[name] ? validValue(doc, props[name]) : null;
      if (!value) continue;
      const example = fc.sample(value, { seed: 1, numRuns: 1 })[0] ?? "";
      breakers.push({
        breaks: `body ${name} without ${needs.join(", ")} (dependency)`,
        apply: (_parts, fields) => [
          ...(fields ?? []).filter(([n]) => n !== name && !needs.includes(n)),
          [name, example],
        ],
      });
    }
    const sets = requiredSets(plan.schema);
    if (sets.length > 1) {
      const base = plan.schema.required ?? [];
      const alternatives = [...new Set(sets.flatMap((set) => set.required))].filter((n) => !base.includes(n));
      breakers.push({
        breaks: `body: none of ${alternatives.join(", ")} (anyOf required)`,
        apply: (_parts, fields) => (fields ?? []).filter(([n]) => !alternatives.includes(n)),
      });
      // An alternative given alone, with a field that breaks what the alternative asks of it.
      for (const set of sets) {
        for (const [name, rule] of Object.entries(set.properties)) {
          for (const v of violations(doc, rule)) {
            const others = alternatives.filter((n) => !set.required.includes(n));
            breakers.push({
              breaks: `body ${name}: the only location, ${v.breaks} (${JSON.stringify(v.value)})`,
              apply: (_parts, fields) => [
                ...(fields ?? []).filter(([n]) => !others.includes(n) && n !== name),
                [name, v.value],
              ],
            });
          }
        }
      }
    }
  }
  if (breakers.length === 0) return null;
  const plan = plans[0];
  const parts = validParts(doc, o, k);
  const fields = plan
    ? validFields(doc, plan.schema, k, scopeOf(o)).chain((f) => {
        return answers(k, f).map((extra) => [...f, ...extra]);
      })
    : fc.constant(null);
  // The body's fields come from the first content type's schema (form and multipart share them); any content
  // type carries them.
  const contentType = fc.constantFrom(...(plans.length > 0 ? plans.map((x) => x.contentType) : [""]));
  return fc.tuple(fc.constantFrom(...breakers), parts, fields, contentType).map(([breaker, p, f, type]) => {
    const copy: Parts = { path: new Map(p.path), query: new Map(p.query), headers: new Map(p.headers) };
    const broken = breaker.apply(copy, f ? [...f] : null);
    return buildCase(o, copy, plan && broken ? { contentType: type, fields: broken } : null, base, breaker.breaks);
  });
}

// --- Checking answers ----------------------------------------------------------------------------------------

const validators = new WeakMap<OpenApiDocument, (data: unknown, schema: Schema) => boolean>();
const compiled = new WeakMap<Schema, ValidateFunction>();
let lastErrors = "";

/** Validates data against a schema of the description (its $refs resolved against the description). */
export function validatorFor(doc: OpenApiDocument): (data: unknown, schema: Schema) => boolean {
  let v = validators.get(doc);
  if (!v) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: "https://contract.test/openapi", components: doc.components ?? {} });
    v = (data, schema) => {
      let validate = compiled.get(schema);
      if (!validate) {
        const text = JSON.stringify(schema).replace(/"#\/components\//g, '"https://contract.test/openapi#/components/');
        validate = ajv.compile(JSON.parse(text) as object);
        compiled.set(schema, validate);
      }
      const ok = validate(data);
      lastErrors = ok ? "" : ajv.errorsText(validate.errors);
      return ok;
    };
    validators.set(doc, v);
  }
  return v;
}

function documentedResponse(op: OperationObject, status: number): Response | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

/** What is wrong with an answer to a case, as the description reads; empty when it keeps the contract. */
export function mismatches(doc: OpenApiDocument, o: Operation, c: ContractCase, res: LightMyRequestResponse): string[] {
  const out: string[] = [];
  const status = res.statusCode;
  const what = c.breaks === null ? "valid request" : `request breaking ${c.breaks}`;
  if (status >= 500) out.push(`${status} for a ${what}`);
  if (c.breaks === null && (status === 400 || status === 422)) {
    out.push(`${status} for a valid request: ${res.body.slice(0, 400)}`);
  }
  if (c.breaks !== null && (status < 400 || status >= 500)) out.push(`${status} (accepted) for a ${what}`);
  const described = documentedResponse(o.op, status);
  if (!described) {
    out.push(`status ${status} is not documented (${what}): ${res.body.slice(0, 160)}`);
    return out;
  }
  const validate = validatorFor(doc);
  for (const [name, header] of Object.entries(described.headers ?? {})) {
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) out.push(`${status}: required header ${name} is missing`);
      continue;
    }
    if (header.schema && !validate(coerceFor(resolve(doc, header.schema), String(value)), header.schema)) {
      out.push(`${status}: header ${name}: ${JSON.stringify(value)} does not fit its schema: ${lastErrors}`);
    }
  }
  const hasBody = res.rawPayload.length > 0;
  if (!described.content || Object.keys(described.content).length === 0) {
    if (hasBody && o.method !== "HEAD") out.push(`${status}: a body is sent but none is documented`);
    return out;
  }
  if (!hasBody || o.method === "HEAD") {
    out.push(`${status}: no body, though one is documented`);
    return out;
  }
  const type =
    String(res.headers["content-type"] ?? "")
      .split(";")[0]
      ?.trim() ?? "";
  const media = described.content[type];
  if (!media) {
    out.push(
      `${status}: content type ${type || "(none)"} is not documented (${Object.keys(described.content).join(", ")})`,
    );
    return out;
  }
  if (!media.schema) return out;
  const schema = resolve(doc, media.schema);
  const isJson = type === "application/json" || type.endsWith("+json");
  let data: unknown = res.body;
  if (isJson) {
    try {
      data = JSON.parse(res.body);
    } catch {
      out.push(`${status}: ${type} body is not JSON`);
      return out;
    }
  } else if (type.endsWith("/xml") && !res.body.startsWith("<?xml")) {
    out.push(`${status}: ${type} body is not an XML document`);
  }
  if (!validate(data, media.schema)) {
    out.push(`${status} ${type}: body does not fit the documented schema: ${lastErrors.slice(0, 300)}`);
  }
  void schema;
  return out;
}

/** Sends a case; for a 200 with an ETag, also the same request with If-None-Match (a client revalidating). */
let sent = 0;

/**
 * A client sends a new Idempotency-Key with each new request (the description says so): the drawn key, made unique
 * with a counter, quoted as drawn.
 */
function freshKey(key: string): string {
  sent++;
  const quoted = key.length >= 2 && key.startsWith('"') && key.endsWith('"');
  const bare = (quoted ? key.slice(1, -1) : key).slice(0, 240);
  return quoted ? `"${bare}-${sent}"` : `${bare}-${sent}`;
}

export async function send(app: FastifyInstance, c: ContractCase): Promise<LightMyRequestResponse[]> {
  const headers = { ...c.headers };
  const key = headers["idempotency-key"];
  if (key !== undefined && c.breaks === null) headers["idempotency-key"] = freshKey(key);
  const res = await app.inject({
    method: c.method as "GET",
    url: c.url,
    headers,
    ...(c.payload !== undefined ? { payload: c.payload } : {}),
  });
  const etag = res.headers.etag;
  if (c.method === "GET" && res.statusCode === 200 && typeof etag === "string") {
    const again = await app.inject({ method: "GET", url: c.url, headers: { ...c.headers, "if-none-match": etag } });
    return [res, again];
  }
  return [res];
}

// --- Runs --------------------------------------------------------------------------------------------------------

/** What a run found: cases sent, answers by status, and each distinct mismatch with its first example. */
export interface ContractReport {
  cases: number;
  byStatus: Map<number, number>;
  mismatches: Map<string, { count: number; example: string }>;
}

export function emptyReport(): ContractReport {
  return { cases: 0, byStatus: new Map(), mismatches: new Map() };
}

/**
 * Sends `runs` valid and `runs` invalid cases for every operation (drawn with seeds from `seed` on), checks every
 * answer and adds what it finds to `report`. Stops early after `deadline` (a performance.now() time).
 */
export async function runContract(
  app: FastifyInstance,
  doc: OpenApiDocument,
  k: ClientKnowledge,
  options: { seed: number; runs: number; deadline?: number; kinds?: ("valid" | "invalid")[] },
  report: ContractReport = emptyReport(),
): Promise<ContractReport> {
  for (const kind of options.kinds ?? ["valid", "invalid"]) {
    for (const [i, o] of operations(doc).entries()) {
      const arbitrary = kind === "valid" ? validCase(doc, o, k) : invalidCases(doc, o, k);
      if (!arbitrary) continue;
      const seed = options.seed + i + (kind === "valid" ? 0 : 1000);
      for (const c of fc.sample(arbitrary, { seed, numRuns: options.runs })) {
        if (options.deadline !== undefined && performance.now() > options.deadline) return report;
        report.cases++;
        for (const res of await send(app, c)) {
          report.byStatus.set(res.statusCode, (report.byStatus.get(res.statusCode) ?? 0) + 1);
          for (const m of mismatches(doc, o, c, res)) {
            const key = `${c.method} ${o.path}: ${m.replace(/: [[{<].*$/s, "")}`;
            const found = report.mismatches.get(key);
            if (found) found.count++;
            else {
              const body = typeof c.payload === "string" ? c.payload : (c.payload?.toString("utf8") ?? "");
              report.mismatches.set(key, {
                count: 1,
                example: `${c.method} ${c.url.slice(0, 300)}${body ? `\n      body: ${body.slice(0, 600)}` : ""}\n      → ${m.slice(0, 500)}`,
              });
            }
          }
        }
      }
    }
  }
  return report;
}
