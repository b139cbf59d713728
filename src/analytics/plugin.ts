import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { isbot } from "isbot";
import { CountBuffer, FLUSH_MS } from "./counter.js";
import { type DeviceClass, deviceClassOf } from "./device.js";
import { referringSite } from "./referrer.js";
import { SaltCache, statsDay, type VisitorTraits, visitorHash } from "./visitors.js";

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

/** A browser loading a page for a person to read: not a prefetch, not a script's fetch, not a frame. */
function isNavigation(request: FastifyRequest): boolean {
  const h = request.headers;
  const purpose = h["sec-purpose"] ?? h.purpose ?? h["x-purpose"] ?? h["x-moz"];
  if (typeof purpose === "string" && /prefetch|prerender|preview/i.test(purpose)) return false;
  const dest = h["sec-fetch-dest"];
  return dest === undefined || dest === "document";
}

/** What is counted of one response: a page view, an API/feed request, or nothing. */
export function classify(request: FastifyRequest, reply: FastifyReply): "page" | "endpoint" | null {
  if (request.method !== "GET" || reply.statusCode < 200 || reply.statusCode >= 300) return null;
  const pattern = request.routeOptions.url;
  if (!pattern) return null;
  if (ENDPOINTS.test(pattern)) return "endpoint";
  if (NOT_PAGES.test(pattern)) return null;
  const type = reply.getHeader("content-type");
  return typeof type === "string" && type.startsWith("text/html") ? "page" : null;
}

/**
 * Counts page views on the server, after the response has gone (onResponse), so a page never waits for counting
 * and never fails because of it. Kept per day: the route pattern (never the URL or its query), the referring
 * site's registrable domain, the device class, and a visitor hash that becomes a count the next day. Bots,
 * prefetches and requests without a User-Agent are not counted as page views.
 */
export const analyticsPlugin = fp(
  async (app: FastifyInstance) => {
    const civic = app.civic;
    const buffer = new CountBuffer(() => civic.database.db, app.log);
    const salts = new SaltCache(
      () => civic.database.db,
      () => civic.now(),
    );
    const ownHosts = [new URL(civic.config.baseUrl).hostname.toLowerCase()];
    app.decorate("analytics", buffer);
    civic.workers.push(buffer);

    // Bot checks and device classes of recent user agents (the same few browsers load most pages): kept in memory
    // for at most FLUSH_MS, like the counts, and never written anywhere.
    let memo = new Map<string, DeviceClass | null>();
    let memoSince = Date.now();
    const classOf = (ua: string): DeviceClass | null => {
      if (memo.size >= 500 || Date.now() - memoSince > FLUSH_MS) {
        memo = new Map();
        memoSince = Date.now();
      }
      let kind = memo.get(ua);
      if (kind === undefined) {
        kind = isbot(ua) ? null : deviceClassOf(ua);
        memo.set(ua, kind);
      }
      return kind;
    };

    const countVisit = (day: string, salt: Buffer, traits: VisitorTraits) => {
      buffer.visit(day, visitorHash(salt, traits));
    };

    const countPage = (request: FastifyRequest, pattern: string) => {
      const userAgent = request.headers["user-agent"];
      if (typeof userAgent !== "string" || userAgent === "" || !isNavigation(request)) return;
      const ua = userAgent.slice(0, MAX_USER_AGENT);
      const device = classOf(ua);
      if (device === null) return;
      const day = statsDay(civic.now());
      buffer.increment(day, "page", pattern);
      buffer.increment(day, "device", device);
      const referrer = referringSite(request.headers.referer, [...ownHosts, request.hostname.toLowerCase()]);
      if (referrer) buffer.increment(day, "referrer", referrer);
      const traits = { clientAddress: request.ip, userAgent: ua, host: request.host };
      const salt = salts.current(day);
      if (salt) countVisit(day, salt, traits);
      else
        buffer.after(
          salts.load(day).then(
            (s) => countVisit(day, s, traits),
            (error: unknown) =>
              app.log.warn({ code: (error as { code?: unknown }).code ?? null }, "analytics: could not load the salt"),
          ),
        );
    };

    app.addHook("onResponse", (request, reply, done) => {
      try {
        const what = classify(request, reply);
        if (what === "page") countPage(request, request.routeOptions.url as string);
        else if (what === "endpoint")
          buffer.increment(statsDay(civic.now()), "endpoint", request.routeOptions.url as string);
      } catch (error) {
        app.log.warn({ code: (error as { code?: unknown }).code ?? null }, "analytics: could not count a request");
      }
      done();
    });
    app.addHook("onClose", async () => {
      salts.clear();
      memo.clear();
    });
  },
  { name: "analytics" },
);
