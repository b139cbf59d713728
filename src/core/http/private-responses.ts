import type { FastifyInstance, FastifyReply } from "fastify";

/**
 * What marks an answer as private: browsers, proxies and the service worker (src/client/sw/service-worker.ts)
 * store nothing that carries it. One constant, so the worker and the tests check the same words.
 */
export const PRIVATE_NO_STORE = "private, no-store";

/**
 * The header that tells the browser, and the service worker, to drop what it keeps of this site: its pages (the
 * HTTP cache) when a session ends, and also its storage (the offline drafts in IndexedDB, the worker and its pages)
 * when a person's data is erased.
 */
export const CLEAR_DEVICE_CACHE = { name: "clear-site-data", value: '"cache"' } as const;
export const CLEAR_DEVICE_STORAGE = { name: "clear-site-data", value: '"cache", "storage"' } as const;

/**
 * Every answer served to a signed-in person, and every answer of a route marked `config: { personal: true }`
 * (personal data downloads) or opened by an emailed link (a `:token` in its path), and every answer that sets a cookie, is `Cache-Control: private, no-store`, whatever the
 * route set: so no browser cache, shared cache or service worker keeps a page that was meant for one person, and
 * nothing of it is shown to the next person at that device after sign-out. Decided here, once, after every route
 * and error handler has answered; a route does not have to remember. The only answers left alone are those a route
 * declared `public` (photos, feeds, the site map: the same bytes for everyone, whoever asks).
 */
export function registerPrivateResponses(app: FastifyInstance): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    // Fastify builds request.routeOptions anew on every read: read it once.
    const route = request.routeOptions;
    const personal = personalRoute(route) || reply.hasHeader("set-cookie");
    if (personal || (request.viewer !== null && !declaredPublic(reply.getHeader("cache-control")))) {
      reply.header("cache-control", PRIVATE_NO_STORE);
    }
    done(null, payload);
  });
}

/** A route opened by an emailed link carries the link's secret in its path: what it shows is for one person. */
const LINK_TOKEN = /\/:token(?:\/|$)/;

/**
 * Whether a route's answers are for one person whoever asks: marked `personal` (data downloads) or opened by an
 * emailed link. Such pages are never stored by a cache, and never offer a link preview (core/web/layout.tsx).
 */
export function personalRoute(route: { config: { personal?: boolean }; url?: string }): boolean {
  return route.config.personal === true || LINK_TOKEN.test(route.url ?? "");
}

function declaredPublic(value: unknown): boolean {
  return typeof value === "string" && /^\s*public\b/i.test(value);
}

/**
 * Marks an answer that erases a person's data or deletes their account: nothing of theirs is to stay on this
 * device. The browser drops its HTTP cache and every storage of the site (IndexedDB with the offline drafts, the
 * service worker with the pages it keeps; cookies stay, so another session of this browser is not signed out). The
 * erase form asks first when unsent drafts would be lost (src/client/enhance.ts).
 */
export function clearDeviceCache(reply: FastifyReply): FastifyReply {
  return reply.header(CLEAR_DEVICE_STORAGE.name, CLEAR_DEVICE_STORAGE.value);
}

/**
 * Marks an answer that ends a session on this device (sign-out of any kind, a session that ended elsewhere): the
 * browser drops its HTTP cache for the site and the service worker purges the pages it keeps. Storage stays, as a
 * session can also end by expiry: the drafts saved in that session are neither shown nor sent in another one, and
 * the sign-out forms delete them, asking first (src/client/enhance.ts). An answer already marked by
 * `clearDeviceCache` keeps its wider clearing.
 */
export function clearDevicePages(reply: FastifyReply): FastifyReply {
  if (reply.hasHeader(CLEAR_DEVICE_CACHE.name)) return reply;
  return reply.header(CLEAR_DEVICE_CACHE.name, CLEAR_DEVICE_CACHE.value);
}
