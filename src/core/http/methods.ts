import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import FindMyWay from "find-my-way";
import { AppError } from "./errors.js";

/**
 * The longest path parameter, in Unicode code points as the OpenAPI description (and JSON Schema's `maxLength`)
 * counts characters; a longer one is a 414.
 */
export const MAX_PARAM_CODE_POINTS = 200;

/**
 * The router options of the app (app.ts), which the method index matches paths with too. The router counts a
 * parameter in UTF-16 units, of which a code point has at most two: its limit lets every parameter of at most
 * MAX_PARAM_CODE_POINTS through (to `overlongParams`, which counts code points) and answers 414 only to ones past it.
 */
export const ROUTER_OPTIONS = { maxParamLength: 2 * MAX_PARAM_CODE_POINTS } as const;

/** Whether a path parameter (a wildcard's rest of the path aside) is longer than MAX_PARAM_CODE_POINTS code points. */
export function hasOverlongParam(params: unknown): boolean {
  if (typeof params !== "object" || params === null) return false;
  // for…in, not Object.entries: this runs first on every request (the hot 304 path included), and a route without
  // parameters then allocates nothing.
  const record = params as Record<string, unknown>;
  for (const name in record) {
    const value = record[name];
    if (name === "*" || typeof value !== "string" || value.length <= MAX_PARAM_CODE_POINTS) continue;
    let count = 0;
    for (const _ of value) if (++count > MAX_PARAM_CODE_POINTS) return true;
  }
  return false;
}

/**
 * An `onRequest` hook, the app's first: a path parameter longer than MAX_PARAM_CODE_POINTS code points is a 414,
 * answered in the family's format, as the router answers the ones past its own limit.
 */
export function overlongParams(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (hasOverlongParam(request.params)) done(new AppError("uri_too_long", "The address is too long."));
  else done();
}

/** The order methods are listed in an Allow header. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "QUERY", "OPTIONS", "TRACE"];
const rank = (method: string) => (ORDER.includes(method) ? ORDER.indexOf(method) : ORDER.length);

/**
 * Which methods each path of the app answers: a find-my-way router (the router Fastify itself uses, with the same
 * options) built from the route list (`civic.routes`, which every registered route joins), asked for a path's
 * other methods only when the app's router found no route for the request's method. Built on first use and again
 * if routes were added since.
 */
export class MethodIndex {
  private router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;
  private methods: string[] = [];
  private size = -1;

  constructor(private readonly routes: readonly { method: string; url: string }[]) {}

  /**
   * The methods of the routes matching `url` (its query string is ignored), in Allow order; empty for a path no
   * route has. A catch-all OPTIONS route (an API family's CORS preflight, `/api/v2/*`) does not make a path known.
   */
  allowed(url: string): string[] {
    const router = this.current();
    // A match whose parameter is past the length limit is none, as the app's router (which answers it 414) counts.
    const found = this.methods.filter((m) => {
      const match = router.find(m as FindMyWay.HTTPMethod, url);
      return match !== null && !hasOverlongParam(match.params);
    });
    return found.some((m) => m !== "OPTIONS") ? found : [];
  }

  private current(): FindMyWay.Instance<FindMyWay.HTTPVersion.V1> {
    if (this.router && this.size === this.routes.length) return this.router;
    const router = FindMyWay({ ...ROUTER_OPTIONS });
    const methods = new Set<string>();
    const seen = new Set<string>();
    for (const { method, url } of this.routes) {
      const key = `${method} ${url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      methods.add(method);
      router.on(method as FindMyWay.HTTPMethod, url, () => {});
    }
    this.router = router;
    this.methods = [...methods].sort((a, b) => rank(a) - rank(b));
    this.size = this.routes.length;
    return router;
  }
}

const indexes = new WeakMap<readonly unknown[], MethodIndex>();

/** The methods of the routes in `routes` (a route list such as `civic.routes`) matching `url`, in Allow order. */
export function allowedMethods(routes: readonly { method: string; url: string }[], url: string): string[] {
  let index = indexes.get(routes);
  if (!index) {
    index = new MethodIndex(routes);
    indexes.set(routes, index);
  }
  return index.allowed(url);
}

/**
 * An `onRequest` hook: a request the router found no route for, at a path that other methods have, is answered
 * `405 Method Not Allowed` with `Allow` naming them (RFC 9110 §15.5.6), in the family's format by the scope's error
 * handler, before its body is read or any later check runs. A path no route has goes on to the not-found handler
 * (404). `skip` leaves some paths to a scope that registers the hook itself (the staff console, after its guard).
 */
export function methodNotAllowed(skip?: (url: string) => boolean) {
  return function methodNotAllowedHook(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (!request.is404 || skip?.(request.url)) {
      done();
      return;
    }
    const allowed = allowedMethods(request.server.civic.routes, request.url);
    if (allowed.length === 0) {
      done();
      return;
    }
    const allow = allowed.join(", ");
    done(
      new AppError("method_not_allowed", `${request.method} is not allowed here. This address answers ${allow}.`, {
        headers: { allow },
      }),
    );
  };
}
