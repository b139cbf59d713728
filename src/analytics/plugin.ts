import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from "fastify";
import fp from "fastify-plugin";
import { isbot } from "isbot";
import { CountBuffer } from "./counter.js";
import { type DeviceClass, deviceClassOf } from "./device.js";
import { refererHost, registrableDomain } from "./referrer.js";
import { DayClock, SaltCache } from "./visitors.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Cookie-free visitor statistics; tests call `analytics.flush()` instead of waiting for the timer. */
    analytics: CountBuffer;
  }
}

/** Route patterns that are never page views (staff pages, machine-readable resources, files). */
const NOT_PAGES = /^\/(?:admin|api|data|assets|photos)(?:\/|$)/;
/** Route patterns counted as API or feed use (per endpoint and day, counts only). */
const ENDPOINTS = /^\/(?:api|data)\/|\.(?:atom|rss|json)$/;
const MAX_USER_AGENT = 512;
/** A host name has at most 253 characters, and a port six more: anything longer is cut (it waits in memory). */
const MAX_HOST = 260;
/** Entries of each per-window memo (user agents, referrers) before it starts afresh. */
const MAX_MEMO = 500;

/**
 * What a route's successful GET responses count as, decided once when the route is registered: a page view (an
 * HTML page), an API or feed request, or nothing.
 */
export function countedAs(pattern: string, method: string | string[]): "page" | "endpoint" | null {
  if (!(Array.isArray(method) ? method.includes("GET") : method === "GET")) return null;
  if (ENDPOINTS.test(pattern)) return "endpoint";
  if (NOT_PAGES.test(pattern)) return null;
  return "page";
}

/** A browser loading a page for a person to read: not a prefetch, not a script's fetch, not a frame. */
function isNavigation(request: FastifyRequest): boolean {
  const h = request.headers;
  const purpose = h["sec-purpose"] ?? h.purpose ?? h["x-purpose"] ?? h["x-moz"];
  if (typeof purpose === "string" && /prefetch|prerender|preview/i.test(purpose)) return false;
  const dest = h["sec-fetch-dest"];
  return dest === undefined || dest === "document";
}

const succeeded = (request: FastifyRequest, reply: FastifyReply) =>
  request.method === "GET" && reply.statusCode >= 200 && reply.statusCode < 300;

/** A Map that starts afresh when it is full (a memo of recent inputs, bounded). */
function remember<V>(memo: Map<string, V>, key: string, value: V): V {
  if (memo.size >= MAX_MEMO) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * Counts page views on the server, after the response has gone (onResponse), so a page never waits for counting
 * and never fails because of it. Kept per day: the route pattern (never the URL or its query), the referring
 * site's registrable domain, the device class, and a visitor hash that becomes a count the next day. Bots,
 * prefetches and requests without a User-Agent are not counted as page views.
 *
 * Cheap per request: each counted route gets its own onResponse hook when it is registered (no pattern matching
 * per request, nothing at all on routes that are not counted); a view only adds to counters in memory. The visitor
 * HMAC is computed at the flush, once per visitor and window (see CountBuffer).
 */
export const analyticsPlugin = fp(
  async (app: FastifyInstance) => {
    const civic = app.civic;
    const salts = new SaltCache(
      () => civic.database.db,
      () => civic.now(),
    );
    const buffer = new CountBuffer(
      () => civic.database.db,
      (day) => salts.get(day),
      app.log,
    );
    const clock = new DayClock(() => civic.now());
    const ownHost = new URL(civic.config.baseUrl).hostname.toLowerCase();
    app.decorate("analytics", buffer);
    civic.workers.push(buffer);

    // Bot checks and device classes of recent user agents (the same few browsers load most pages), and the hosts
    // of recent referrers: kept in memory until the window's counts are flushed, and never written anywhere.
    const devices = new Map<string, DeviceClass | null>();
    const referrers = new Map<string, { host: string; site: string | null } | null>();
    buffer.onWindowEnd = () => {
      devices.clear();
      referrers.clear();
    };
    const classOf = (ua: string): DeviceClass | null => {
      const kind = devices.get(ua);
      return kind !== undefined ? kind : remember(devices, ua, isbot(ua) ? null : deviceClassOf(ua));
    };
    const referringSite = (request: FastifyRequest, referer: string): string | null => {
      let ref = referrers.get(referer);
      if (ref === undefined) {
        const host = refererHost(referer);
        ref = remember(referrers, referer, host === null ? null : { host, site: registrableDomain(host) });
      }
      if (ref === null || ref.site === null || ref.host === ownHost) return null;
      return ref.host === request.hostname.toLowerCase() ? null : ref.site;
    };

    const countPage = (request: FastifyRequest, pattern: string) => {
      const userAgent = request.headers["user-agent"];
      if (typeof userAgent !== "string" || userAgent === "" || !isNavigation(request)) return;
      const ua = userAgent.length > MAX_USER_AGENT ? userAgent.slice(0, MAX_USER_AGENT) : userAgent;
      const device = classOf(ua);
      if (device === null) return;
      const day = clock.today();
      buffer.increment(day, "page", pattern);
      buffer.increment(day, "device", device);
      const referer = request.headers.referer;
      if (referer) {
        const site = referringSite(request, referer);
        if (site) buffer.increment(day, "referrer", site);
      }
      const host = request.host;
      buffer.visit(day, {
        clientAddress: request.ip ?? "",
        userAgent: ua,
        host: host.length > MAX_HOST ? host.slice(0, MAX_HOST) : host,
      });
    };

    const guarded =
      (count: (request: FastifyRequest, reply: FastifyReply) => void): onResponseHookHandler =>
      (request, reply, done) => {
        try {
          count(request, reply);
        } catch (error) {
          app.log.warn({ code: (error as { code?: unknown }).code ?? null }, "analytics: could not count a request");
        }
        done();
      };

    app.addHook("onRoute", (route) => {
      const what = countedAs(route.url, route.method);
      if (what === null) return;
      const pattern = route.url;
      const hook =
        what === "endpoint"
          ? guarded((request, reply) => {
              if (succeeded(request, reply)) buffer.increment(clock.today(), "endpoint", pattern);
            })
          : guarded((request, reply) => {
              if (!succeeded(request, reply)) return;
              const type = reply.getHeader("content-type");
              if (typeof type === "string" && type.startsWith("text/html")) countPage(request, pattern);
            });
      const existing = route.onResponse;
      route.onResponse = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
    });
    app.addHook("onClose", async () => {
      salts.clear();
      devices.clear();
      referrers.clear();
    });
  },
  { name: "analytics" },
);
