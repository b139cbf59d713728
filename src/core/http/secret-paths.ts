import type { FastifyRequest, RouteOptions } from "fastify";
import { redactNamedParams } from "./redact.js";

/**
 * Secrets in addresses. A route declares the path parameters that carry a secret (the token of an emailed link):
 * every parameter called `token` (in its path or its params schema, the convention of core/tokens.ts TokenParams)
 * and the names in its `config.secretParams`. The app (app.ts) reads the declaration of every route as it is added
 * (onRoute) and gives each such route a redactor for its address; the log lines that carry a URL (the access line,
 * the 304 counts, Fastify's `req` lines) write it through `loggableUrl`, with those segments replaced by
 * `[redacted]` and the declared names' query values too. A route without a secret costs one property read.
 */

declare module "fastify" {
  interface FastifyContextConfig {
    /** Path parameters (besides any called `token`) whose values are secrets, never written to a log. */
    secretParams?: readonly string[];
  }
  interface FastifyRequest {
    /** Set on requests to a route with a secret in its address: what a log line may write of them. */
    secrets?: RouteSecrets;
  }
}

/** What a log line writes instead of a secret. */
export const REDACTED = "[redacted]";

/** The names of a route's secret path parameters: `token` wherever it is declared, and `config.secretParams`. */
export function secretParamsOf(route: Pick<RouteOptions, "url" | "schema" | "config">): string[] {
  const names = new Set<string>(route.config?.secretParams ?? []);
  const params = route.schema?.params as { properties?: Record<string, unknown> } | undefined;
  if (params?.properties && "token" in params.properties) names.add("token");
  if (/:token(?![A-Za-z0-9_])/.test(route.url)) names.add("token");
  return [...names];
}

/** The indexes of the `/`-separated segments of `url` (a route pattern) that hold one of `names`. */
function secretSegments(url: string, names: readonly string[]): number[] {
  const indexes: number[] = [];
  url.split("/").forEach((segment, i) => {
    const params = segment.match(/:[A-Za-z0-9_]+/g) ?? [];
    if (params.some((p) => names.includes(p.slice(1)))) indexes.push(i);
  });
  return indexes;
}

/** `url` with the segments at `indexes` of its path replaced (empty ones left: there is nothing to hide). */
function redactSegments(url: string, indexes: readonly number[]): string {
  const q = url.indexOf("?");
  const parts = (q < 0 ? url : url.slice(0, q)).split("/");
  for (const i of indexes) if (i < parts.length && parts[i] !== "") parts[i] = REDACTED;
  return parts.join("/") + (q < 0 ? "" : url.slice(q));
}

/** The secrets of a route: their names, and its address as a log line may write it. */
export interface RouteSecrets {
  names: readonly string[];
  url(url: string): string;
}

/**
 * The secrets of a route, or undefined when it declares none: its address is written with its secret segments
 * replaced, found by position (so an encoded character elsewhere in the path changes nothing), and with the query
 * values of its secret names (also with encoded names; the usual secret names are redacted for every URL by forLog).
 */
export function routeSecrets(route: Pick<RouteOptions, "url" | "schema" | "config">): RouteSecrets | undefined {
  const names = secretParamsOf(route);
  if (names.length === 0) return undefined;
  const indexes = secretSegments(route.url, names);
  return {
    names,
    url(url: string): string {
      const redacted = redactSegments(url, indexes);
      const q = redacted.indexOf("?");
      return q < 0 ? redacted : redacted.slice(0, q) + redactNamedParams(redacted.slice(q), names);
    },
  };
}

/** A route pattern with a secret, for addresses that no route answered (too long, an extra segment, …). */
interface Lookalike {
  /** The pattern's segments before the secret one: literal text, or null for a parameter (anything). */
  before: (string | null)[];
  index: number;
}

const lookalikes = new WeakMap<readonly unknown[], { size: number; list: Lookalike[] }>();

/** The patterns of `routes` (the app's route list) that have a secret, built again when routes were added. */
function lookalikesOf(routes: readonly RouteEntry[]): Lookalike[] {
  const known = lookalikes.get(routes);
  if (known && known.size === routes.length) return known.list;
  const list: Lookalike[] = [];
  const seen = new Set<string>();
  for (const { url, secretParams } of routes) {
    if (!secretParams || secretParams.length === 0) continue;
    const segments = url.split("/");
    for (const index of secretSegments(url, secretParams)) {
      const before = segments.slice(0, index).map((s) => (s.includes(":") || s.includes("*") ? null : s));
      const key = `${before.map((s) => s ?? ":").join("/")}#${index}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.push({ before, index });
    }
  }
  lookalikes.set(routes, { size: routes.length, list });
  return list;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * `url` with every segment redacted that sits where a route with a secret has it, when the segments before it are
 * that route's (compared decoded, as the router compares them): for an address no route answered, which may still
 * be a link with its token (too long, cut, with an extra segment, with a method the route lacks).
 */
export function redactLookalikes(routes: readonly RouteEntry[], url: string): string {
  const list = lookalikesOf(routes);
  if (list.length === 0) return url;
  const q = url.indexOf("?");
  const parts = (q < 0 ? url : url.slice(0, q)).split("/");
  let decoded: string[] | undefined;
  const indexes: number[] = [];
  for (const { before, index } of list) {
    if (parts.length <= index) continue;
    decoded ??= parts.map(safeDecode);
    if (before.every((s, i) => s === null || s === decoded?.[i])) indexes.push(index);
  }
  return indexes.length === 0 ? url : redactSegments(url, indexes);
}

/** An entry of the app's route list (core/context.ts `routes`). */
export interface RouteEntry {
  method: string;
  url: string;
  /** The route's secret path parameters (secretParamsOf), when it has any. */
  secretParams?: readonly string[];
  /** The query parameters its querystring schema declares, when it has one (for tests that walk every route). */
  query?: readonly string[];
}

/** The onRequest hook a route with a secret gets (app.ts): marks the request with the route's secrets. */
export function markSecrets(secrets: RouteSecrets) {
  return (request: FastifyRequest, _reply: unknown, done: () => void): void => {
    request.secrets = secrets;
    done();
  };
}

/** The values of the request's secret path parameters (none when its route declares none). */
function secretValues(request: FastifyRequest): string[] {
  const secrets = request.secrets;
  if (secrets === undefined) return [];
  const params = (request.params ?? {}) as Record<string, unknown>;
  return secrets.names.map((name) => params[name]).filter((v): v is string => typeof v === "string" && v.length > 0);
}

/** `text` with the request's secret path parameters' values replaced (an error message that quotes the token). */
export function withoutSecrets(request: FastifyRequest, text: string): string {
  let out = text;
  for (const value of secretValues(request)) out = out.split(value).join(REDACTED);
  return out;
}

/**
 * An error as a log line may write it: itself, or, when its message or stack quotes one of the request's secret
 * path parameters, a copy with them replaced (the fields the logger's `err` serializer writes).
 */
export function errorWithoutSecrets<E>(request: FastifyRequest, error: E): E {
  if (!(error instanceof Error) || request.secrets === undefined) return error;
  const values = secretValues(request);
  const text = `${error.message}\n${error.stack ?? ""}`;
  if (!values.some((v) => text.includes(v))) return error;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as Error, error);
  Object.defineProperty(copy, "message", { value: withoutSecrets(request, error.message), enumerable: false });
  Object.defineProperty(copy, "stack", { value: withoutSecrets(request, error.stack ?? ""), enumerable: false });
  return copy as E;
}

/**
 * A request's URL as a log line may write it: through its route's redactor when the route declares a secret; for a
 * request no route answered (or answered with an error before its route's hooks ran: `unanswered`), with every
 * segment redacted that looks like a secret route's. Other requests: the URL as it is (forLog still bounds it and
 * redacts emails and secret query parameters).
 */
export function loggableUrl(request: FastifyRequest, unanswered: boolean): string {
  const secrets = request.secrets;
  if (secrets !== undefined) return secrets.url(request.url);
  if (!unanswered) return request.url;
  const routes = (request.server as { civic?: { routes?: readonly RouteEntry[] } } | undefined)?.civic?.routes;
  return routes ? redactLookalikes(routes, request.url) : request.url;
}
