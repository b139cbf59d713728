/**
 * The fuzzer's model of the site, shared by test/hardening/fuzz.test.ts (small budget, fixed seed, in `npm test`)
 * and bench/fuzz (long runs): every operation of the OpenAPI description, every route the app registered and every
 * <form> of the site's pages, each with its parameters and fields, filled with random, boundary and hostile values.
 */
import type { FastifyInstance, InjectOptions } from "fastify";
import fc from "fast-check";
import { routeFamily } from "../../src/core/http/error-handler.js";

/** One request target: a method, a path template (`{name}` or `:name` parameters) and what it takes. */
export interface Target {
  method: string;
  path: string;
  query: string[];
  body: string[];
  /** Content types the target reads, from the OpenAPI description or the form's enctype. */
  contentTypes: string[];
  /** A page to fetch a form token from before posting (HTML forms). */
  formPage?: string;
}

/** A request built by the fuzzer, ready for app.inject. */
export interface FuzzCase {
  target: Target;
  url: string;
  method: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** Fetch a fresh form token from the target's form page and put it in the body. */
  withFormToken: boolean;
}

// --- Discovering the targets ---------------------------------------------------------------------------------

interface OpenApiParameter {
  name: string;
  in: string;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** Every operation of the OpenAPI description, with its path, query and body fields. */
export function openApiTargets(app: FastifyInstance): Target[] {
  const doc = app.swagger() as { paths?: Record<string, Record<string, OpenApiOperation>> };
  const targets: Target[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete", "head"].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      const body = new Set<string>();
      for (const c of Object.values(content))
        for (const name of Object.keys(c.schema?.properties ?? {})) body.add(name);
      targets.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
        body: [...body],
        contentTypes: Object.keys(content),
      });
    }
  }
  return targets;
}

/** Every route the app registered (pages included, which the OpenAPI description leaves out), GET and HEAD only. */
export function registeredTargets(app: FastifyInstance): Target[] {
  const seen = new Set<string>();
  const targets: Target[] = [];
  for (const { method, url } of app.civic.routes) {
    if (method !== "GET" || url.includes("*") || url.startsWith("/assets/") || seen.has(url)) continue;
    seen.add(url);
    targets.push({ method, path: url, query: ["page", "q", "category", "status"], body: [], contentTypes: [] });
  }
  return targets;
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form>/gi;
const ATTR = (name: string) => new RegExp(`\\b${name}="([^"]*)"`, "i");
const FIELD = /<(?:input|select|textarea|button)\b[^>]*\bname="([^"]+)"/gi;

/** Every <form> on the given pages: action, method, enctype and field names (form tokens are fetched per case). */
export async function formTargets(app: FastifyInstance, pages: string[]): Promise<Target[]> {
  const targets: Target[] = [];
  const seen = new Set<string>();
  for (const page of pages) {
    const html = (await app.inject({ method: "GET", url: page })).body;
    for (const [, attrs = "", inner = ""] of html.matchAll(FORM)) {
      const method = (ATTR("method").exec(attrs)?.[1] ?? "get").toUpperCase();
      const action = ATTR("action").exec(attrs)?.[1] ?? page.split("?")[0] ?? "/";
      const enctype = ATTR("enctype").exec(attrs)?.[1] ?? "application/x-www-form-urlencoded";
      const fields = [...new Set([...inner.matchAll(FIELD)].map((m) => m[1] ?? ""))].filter((f) => f !== "_csrf");
      const key = `${method} ${action} ${fields.join(",")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const path = action.replace(/&amp;/g, "&").split("?")[0] ?? "/";
      targets.push(
        method === "GET"
          ? { method, path, query: fields, body: [], contentTypes: [] }
          : { method, path, query: [], body: fields, contentTypes: [enctype], formPage: page },
      );
    }
  }
  return targets;
}

// --- Values ----------------------------------------------------------------------------------------------------

/** Text that is hostile to a parser, a database or a loop. */
const HOSTILE_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b@example.org",
  "\u0007\u001b[31m",
  "\u007f",
  "\ud800",
  "\udfff\ud800",
  "\ufffd",
  "Infinity",
  "-Infinity",
  "NaN",
  "1e999",
  "-1e999",
  "1e308",
  "-0",
  "0x10",
  "9".repeat(400),
  "00000000000000000000000000001",
  "2147483648",
  "9007199254740993",
  "0000-02-29",
  "0050-01-01",
  "99999-12-31",
  "2026-02-30T25:61:61Z",
  "a".repeat(5000),
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "../../../etc/passwd",
  "javascript:alert(1)",
  "https://example.org/a\u0000.jpg",
  "__proto__",
  "constructor",
  "attribute[x]",
  "🦆".repeat(100),
  "\r\n\r\n",
  ",,,,",
  "open,closed,open",
];

/** URL-encoded fragments that are not valid percent-encodings of UTF-8. */
const BROKEN_ENCODINGS = ["%", "%zz", "%FF%FE", "%C3", "%ED%A0%80", "%00", "%E0%80%80", "%2", "%%"];

/** A text value: hostile constants, random strings (all of Unicode), numbers of every kind. */
export const textValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: "binary" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) },
);

/** Percent-encodes text as a browser would; lone surrogates (which encodeURIComponent refuses) as raw bytes. */
export function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text]
      .map((ch) => {
        try {
          return encodeURIComponent(ch);
        } catch {
          return "%ED%A0%80";
        }
      })
      .join("");
  }
}

/** An URL-encoded value: a properly encoded text value or a broken encoding. */
const urlValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: textValue.map(encode) },
  { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ENCODINGS) },
  { weight: 1, arbitrary: fc.tuple(textValue, fc.constantFrom(...BROKEN_ENCODINGS)).map(([t, b]) => encode(t) + b) },
);

/** Values that pass, per field name, so that cases reach past the first check (a hostile value then goes deeper). */
const VALID: Record<string, string[]> = {
  service_code: ["pothole", "streetlight", "bus_shelter"],
  category: ["pothole", "streetlight", "bus_shelter"],
  lat: ["50.9862", "50.99"],
  long: ["-2.0437"],
  lng: ["-2.0437"],
  radius: ["300"],
  description: ["The lamp outside the shop flickers all night."],
  title: ["Flickering lamp"],
  address_string: ["Bus stop by the church"],
  location_text: ["Bus stop by the church"],
  email: ["resident@example.org"],
  name: ["Alex Reporter"],
  first_name: ["Alex"],
  last_name: ["Reporter"],
  share_contact: ["on"],
  q: ["bakery", "pub"],
  status: ["open", "closed"],
  page: ["1", "2"],
  page_size: ["10"],
  since: ["2026-11-01"],
  start_date: ["2026-10-01T00:00:00Z"],
  end_date: ["2026-11-01"],
  "attribute[fault]": ["flickering"],
};

function valueFor(name: string, valid: boolean): fc.Arbitrary<string> {
  const known = VALID[name];
  return valid && known ? fc.constantFrom(...known) : textValue;
}

/**
 * Pairs for the fields. Either every field with a known valid value gets it and one field gets a hostile value
 * (reaching the deeper checks), or each field is independently left out, hostile, or given twice (an array where a
 * string is expected).
 */
function pairs(names: string[], extra: string[]): fc.Arbitrary<[string, string][]> {
  const all = [...new Set([...names, ...extra])];
  if (all.length === 0) return fc.constant([]);
  const known = all.filter((name) => VALID[name]);
  const oneHostile = fc
    .tuple(fc.constantFrom(...all), textValue, fc.tuple(...known.map((name) => valueFor(name, true))))
    .map(([bad, hostile, valid]) => [
      ...known.map((name, i): [string, string] => [name, valid[i] ?? ""]).filter(([name]) => name !== bad),
      [bad, hostile] as [string, string],
    ]);
  const independent = fc
    .tuple(
      ...all.map((name) =>
        fc.record({
          keep: fc.nat(9),
          values: fc.array(valueFor(name, false), { minLength: 1, maxLength: 2 }),
          valid: valueFor(name, true),
        }),
      ),
    )
    .map((rs) =>
      rs.flatMap((r, i): [string, string][] => {
        const name = all[i] ?? "";
        if (r.keep >= 7) return [];
        if (r.keep === 0) return r.values.map((v) => [name, v]);
        return [[name, r.keep < 4 ? r.valid : (r.values[0] ?? "")]];
      }),
    );
  return fc.oneof(oneHostile, independent);
}

const multipartBody = (fields: [string, string][], boundary: string): Buffer =>
  Buffer.concat([
    ...fields.map(([name, value]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
    Buffer.from(`--${boundary}--\r\n`),
  ]);

type BodyKind = "form" | "multipart" | "multipart-truncated" | "multipart-no-boundary" | "json" | "text" | "none";

function body(
  kind: BodyKind,
  fields: [string, string][],
): { headers: Record<string, string>; payload?: string | Buffer } {
  const boundary = "----fuzzboundary7MA4YWxkTrZu0gW";
  switch (kind) {
    case "form":
      return {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&"),
      };
    case "multipart":
      return {
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        payload: multipartBody(fields, boundary),
      };
    case "multipart-truncated": {
      const full = multipartBody(fields, boundary);
      return {
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        payload: full.subarray(0, Math.max(1, full.length - 30)),
      };
    }
    case "multipart-no-boundary":
      return { headers: { "content-type": "multipart/form-data" }, payload: multipartBody(fields, boundary) };
    case "json":
      return {
        headers: { "content-type": "application/json" },
        payload: fields.length % 2 ? `{"a": ${"[".repeat(50)}` : JSON.stringify(Object.fromEntries(fields)),
      };
    case "text":
      return { headers: { "content-type": "text/plain" }, payload: fields.map(([k, v]) => `${k}=${v}`).join("&") };
    default:
      return { headers: {} };
  }
}

const PARAM = /\{([^}]+)\}|:([A-Za-z_]+)/g;

/** Cases for one target: hostile path parameters, query and body, and the wrong content types. */
export function caseFor(target: Target, context: { apiKey: string; origin: string }): fc.Arbitrary<FuzzCase> {
  const params = [...target.path.matchAll(PARAM)].map((m) => m[1] ?? m[2] ?? "");
  const bodyKinds: BodyKind[] = [
    ...(target.contentTypes.some((c) => c.startsWith("application/x-www-form")) ? (["form", "form"] as const) : []),
    ...(target.contentTypes.some((c) => c.startsWith("multipart/"))
      ? (["multipart", "multipart-truncated", "multipart-no-boundary"] as const)
      : []),
    "json",
    "text",
    "none",
  ];
  const extraBody = target.path.startsWith("/api/v2/") ? ["attribute[fault]", "attribute[x][]", "media"] : [];
  return fc
    .record({
      params: fc.tuple(
        ...params.map(() => fc.oneof(urlValue, fc.constantFrom("json", "xml", "pothole", "1", "streetlight"))),
      ),
      format: fc.constantFrom("json", "json", "xml", "xml", "html", ""),
      query: pairs(target.query, target.path.startsWith("/api/") ? ["api_key"] : []).map((p) =>
        p.map(([k, v]) => `${encode(k)}=${encode(v)}`),
      ),
      brokenQuery: fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ENCODINGS) },
      ),
      bodyKind: fc.constantFrom(...bodyKinds),
      fields: pairs(target.body, extraBody),
      realKey: fc.nat(4).map((n) => n > 0),
      withToken: fc.nat(4).map((n) => n > 0),
      sameOrigin: fc.nat(4).map((n) => n > 0),
    })
    .map((r) => {
      let i = 0;
      const path = target.path.replace(PARAM, (_m, braced: string | undefined) => {
        const value = r.params[i++] ?? "";
        return braced === "format" ? r.format || value : value;
      });
      const query = [...r.query, ...(r.brokenQuery ? [`x=${r.brokenQuery}`] : [])].join("&");
      const fields: [string, string][] =
        r.realKey && target.path.startsWith("/api/v2/")
          ? [["api_key", context.apiKey], ...r.fields.filter(([k]) => k !== "api_key")]
          : r.fields;
      const isPost = target.method !== "GET" && target.method !== "HEAD";
      const b = isPost ? body(r.bodyKind, fields) : { headers: {} };
      return {
        target,
        url: query ? `${path}?${query}` : path,
        method: target.method,
        headers: { ...b.headers, ...(r.sameOrigin ? { origin: context.origin } : {}) },
        ...(b.payload === undefined ? {} : { payload: b.payload }),
        withFormToken: Boolean(target.formPage) && r.withToken,
      };
    });
}

/** Runs one case: fetches a form token first when asked, then sends the request. */
export async function send(app: FastifyInstance, c: FuzzCase, advanceClock: () => void) {
  const options: InjectOptions = { method: c.method as "GET", url: c.url, headers: c.headers };
  if (c.payload !== undefined) options.payload = c.payload;
  if (c.withFormToken && c.target.formPage) {
    const page = await app.inject({ method: "GET", url: c.target.formPage });
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
    advanceClock();
    const type = c.headers["content-type"] ?? "";
    if (type.startsWith("application/x-www-form-urlencoded")) {
      options.payload = `_csrf=${encodeURIComponent(token)}&${String(c.payload ?? "")}`;
    } else if (type.startsWith("multipart/form-data; boundary=") && Buffer.isBuffer(c.payload)) {
      const boundary = type.slice("multipart/form-data; boundary=".length);
      options.payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n`),
        c.payload,
      ]);
    }
  }
  return app.inject(options);
}

// --- What every answer must satisfy --------------------------------------------------------------------------

const STACK_TRACE = /\n\s+at .+\(.+:\d+:\d+\)|node_modules\/|FST_[A-Z_]+|\bTypeError\b|\bSyntaxError\b/;

/** Problems with one answer (empty when it is fine): never a 5xx, the family's format, no stack trace. */
export function problemsWith(
  c: Pick<FuzzCase, "url" | "method">,
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
): string[] {
  const problems: string[] = [];
  const type = String(res.headers["content-type"] ?? "");
  const path = c.url.split("?")[0] ?? "";
  if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
  if (STACK_TRACE.test(res.body)) problems.push("stack trace or framework internals in the body");
  if (res.statusCode < 400 || c.method === "HEAD") return problems;
  const family = routeFamily(c.url);
  try {
    if (family === "open311") {
      if (res.headers["access-control-allow-origin"] !== "*") problems.push("no CORS on an Open311 error");
      if (type === "text/xml; charset=utf-8") {
        if (
          !/^<\?xml version="1\.0" encoding="utf-8"\?><errors>(<error><code>\d{3}<\/code><description>[^<]*<\/description><\/error>)+<\/errors>$/.test(
            res.body,
          )
        ) {
          problems.push("XML error is not an Open311 error list");
        }
      } else if (type === "application/json; charset=utf-8") {
        const list = JSON.parse(res.body) as unknown;
        const ok =
          Array.isArray(list) &&
          list.length > 0 &&
          list.every(
            (e: { code?: unknown; description?: unknown }) =>
              e.code === res.statusCode && typeof e.description === "string",
          );
        if (!ok) problems.push("JSON error is not an Open311 error list");
        if (path.endsWith(".xml")) problems.push("JSON error for an .xml address");
      } else problems.push(`Open311 error as ${type}`);
    } else if (family === "problem") {
      if (res.headers["access-control-allow-origin"] !== "*") problems.push("no CORS on an API error");
      if (type !== "application/problem+json; charset=utf-8") problems.push(`API error as ${type}`);
      else {
        const p = JSON.parse(res.body) as { status?: unknown; code?: unknown };
        if (p.status !== res.statusCode || typeof p.code !== "string") problems.push("problem+json of the wrong shape");
      }
    } else if (type !== "text/html; charset=utf-8" || !res.body.startsWith("<!doctype html>")) {
      problems.push(`page error as ${type}`);
    }
  } catch {
    problems.push("error body does not parse");
  }
  return problems;
}

/** Pages whose forms the fuzzer fills in. */
export const FORM_PAGES = ["/", "/report", "/report?category=pothole", "/reports", "/status", "/businesses"];

/** Sends one case and checks the answer, the time it took, and that /healthz still answers at once. */
export async function checkCase(
  app: FastifyInstance,
  c: FuzzCase,
  advanceClock: () => void,
): Promise<{ status: number; problems: string[]; summary: string }> {
  const started = performance.now();
  const res = await send(app, c, advanceClock);
  const took = performance.now() - started;
  const problems = problemsWith(c, res);
  if (took > 5000) problems.push(`took ${Math.round(took)} ms`);
  const health = performance.now();
  const healthz = await app.inject({ method: "GET", url: "/healthz" });
  if (healthz.statusCode !== 200 || performance.now() - health > 2000) problems.push("/healthz did not answer at once");
  const summary = `${c.method} ${c.url.slice(0, 300)} [${c.headers["content-type"] ?? "no body"}] → ${res.statusCode} ${res.body.slice(0, 300)}`;
  return { status: res.statusCode, problems, summary };
}

// --- Ids in paths and forms ----------------------------------------------------------------------------------

/**
 * Values no id can take: past the 32-bit `integer` columns, past 64 bits, past every integer a double holds,
 * negative, fractional, not a number. Each must be a clear 4xx wherever an id is read (core/http/ids.ts).
 */
export const HOSTILE_IDS = ["2147483648", "9223372036854775808", "1e308", "-1", "1.5", "abc"];

const ROUTE_PARAM = /:([A-Za-z_]+)/g;

/** A RegExp for the concrete paths of a route pattern such as /ideas/:id or /api/v2/requests/:id.:format. */
export function routeRegExp(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z_]+)/)
    .map((part) => (part.startsWith(":") ? "([^/]+?)" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`);
}

/** The distinct routes (GET and POST, no wildcard, no static asset) of the app's route list. */
export function routeList(app: FastifyInstance): { method: string; url: string }[] {
  const seen = new Set<string>();
  return app.civic.routes.filter((r) => {
    const key = `${r.method} ${r.url}`;
    if (!["GET", "POST"].includes(r.method) || r.url.includes("*") || r.url.startsWith("/assets/") || seen.has(key))
      return false;
    seen.add(key);
    return true;
  });
}

/**
 * Visits the site as one person (the `cookie`, or anonymous): every page without a parameter, then, following
 * links, one concrete page for each route with parameters that some page links to. Returns each visited page's
 * HTML by URL, and a concrete path per route pattern (its real ids, for filling a route's other parameters).
 */
export async function crawl(
  app: FastifyInstance,
  cookie: string | undefined,
  extraPages: string[] = [],
): Promise<{ pages: Map<string, string>; examples: Map<string, string> }> {
  const gets = routeList(app).filter((r) => r.method === "GET");
  const patterns = gets.filter((r) => r.url.includes(":")).map((r) => ({ url: r.url, re: routeRegExp(r.url) }));
  const examples = new Map<string, string>();
  const queue = [...gets.filter((r) => !r.url.includes(":")).map((r) => r.url), ...extraPages];
  const pages = new Map<string, string>();
  while (queue.length > 0 && pages.size < 400) {
    const url = queue.shift() ?? "/";
    if (pages.has(url)) continue;
    const res = await app.inject({ method: "GET", url, headers: cookie ? { cookie } : {} });
    if (!String(res.headers["content-type"] ?? "").startsWith("text/html")) continue;
    pages.set(url, res.body);
    for (const [, href = ""] of res.body.matchAll(/\b(?:href|action)="(\/[^"#]*)"/g)) {
      const path = href.replace(/&amp;/g, "&").split("?")[0] ?? "/";
      const route = patterns.find((p) => p.re.test(path));
      if (!route || examples.has(route.url)) continue;
      examples.set(route.url, path);
      queue.push(href.replace(/&amp;/g, "&"));
    }
  }
  return { pages, examples };
}

/** One posted form: its action, its fields with the values the page gave them. */
export interface PostedForm {
  page: string;
  action: string;
  fields: [string, string][];
}

const INPUT = /<input\b([^>]*)>/gi;
const SELECT = /<select\b([^>]*)>([\s\S]*?)<\/select>/gi;
const OPTION_VALUE = /<option\b[^>]*\bvalue="([^"]*)"/gi;
const TEXTAREA = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi;
const BUTTON = /<button\b([^>]*)>/gi;

const unescape = (v: string) =>
  v
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** Every POST form of the pages, with each field's value as the page gives it (a select: every option's value). */
export function postedForms(pages: Map<string, string>): PostedForm[] {
  const forms: PostedForm[] = [];
  for (const [page, html] of pages) {
    for (const [, attrs = "", inner = ""] of html.matchAll(FORM)) {
      if ((ATTR("method").exec(attrs)?.[1] ?? "get").toLowerCase() !== "post") continue;
      const action = unescape(ATTR("action").exec(attrs)?.[1] ?? page).split("?")[0] ?? "/";
      const fields: [string, string][] = [];
      for (const [, a = ""] of [...inner.matchAll(INPUT), ...inner.matchAll(BUTTON)]) {
        const name = ATTR("name").exec(a)?.[1];
        if (name && name !== "_csrf") fields.push([unescape(name), unescape(ATTR("value").exec(a)?.[1] ?? "")]);
      }
      for (const [, a = "", options = ""] of inner.matchAll(SELECT)) {
        const name = ATTR("name").exec(a)?.[1];
        if (!name) continue;
        for (const [, value = ""] of options.matchAll(OPTION_VALUE)) fields.push([unescape(name), unescape(value)]);
      }
      for (const [, a = "", text = ""] of inner.matchAll(TEXTAREA)) {
        const name = ATTR("name").exec(a)?.[1];
        if (name) fields.push([unescape(name), unescape(text)]);
      }
      forms.push({ page, action, fields });
    }
  }
  return forms;
}

/** A field value that is an id (`12`) or holds one (`newsletter:12`). */
export const ID_VALUE = /^(?:[A-Za-z][\w-]*:)?[1-9][0-9]*$/;

/** One request of the id sweep. */
export interface IdCase {
  method: "GET" | "POST";
  url: string;
  /** Form fields (without the form token, added when sent). */
  fields: [string, string][];
  what: string;
}

/**
 * Requests that put each hostile id into each path parameter of every route (the route's other parameters keep a
 * real value from the crawl, or "1"), and into each field of every posted form that carries an id (the form's other
 * fields keep the values the page gave them, an empty one a short text).
 */
export function idCases(
  routes: { method: string; url: string }[],
  examples: Map<string, string>,
  forms: PostedForm[],
): IdCase[] {
  const cases: IdCase[] = [];
  const formFor = (url: string) => {
    const re = routeRegExp(url);
    return forms.find((f) => re.test(f.action));
  };
  for (const route of routes) {
    const params = [...route.url.matchAll(ROUTE_PARAM)].map((m) => m[1] ?? "");
    if (params.length === 0) continue;
    const real =
      routeRegExp(route.url)
        .exec(examples.get(route.url) ?? "")
        ?.slice(1) ?? [];
    const form = route.method === "POST" ? formFor(route.url) : undefined;
    for (const [i, param] of params.entries()) {
      for (const hostile of HOSTILE_IDS) {
        let n = 0;
        const url = route.url.replace(ROUTE_PARAM, (_m, name: string) => {
          const at = n++;
          if (at === i) return encodeURIComponent(hostile);
          return name === "format" ? "json" : (real[at] ?? "1");
        });
        cases.push({
          method: route.method === "POST" ? "POST" : "GET",
          url,
          fields: filled(form?.fields ?? []),
          what: `${route.method} ${route.url} with ${param}=${hostile}`,
        });
      }
    }
  }
  for (const form of forms) {
    const idFields = [...new Set(form.fields.filter(([, v]) => ID_VALUE.test(v)).map(([k]) => k))];
    for (const name of idFields) {
      const example = form.fields.find(([k, v]) => k === name && ID_VALUE.test(v))?.[1] ?? "";
      const prefix = example.includes(":") ? example.slice(0, example.indexOf(":") + 1) : "";
      const others = filled(form.fields.filter(([k]) => k !== name));
      for (const hostile of HOSTILE_IDS) {
        cases.push({
          method: "POST",
          url: form.action,
          fields: [...others, [name, prefix + hostile]],
          what: `POST ${form.action} (form on ${form.page}) with ${name}=${prefix}${hostile}`,
        });
      }
    }
  }
  return cases;
}

/** One value per field (the first), an empty one given a short text so that required fields pass. */
function filled(fields: [string, string][]): [string, string][] {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const [k, v] of fields) {
    if (seen.has(k)) continue;
    seen.add(k);
    out.push([k, v === "" ? "Checked by the id sweep" : v]);
  }
  return out;
}
