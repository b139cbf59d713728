import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * The names of this computer's own loopback interface, as URLs write them. A browser keeps cookies, sessions and
 * passkeys per name: a person signed in on http://localhost:3000 is not signed in on http://127.0.0.1:3000.
 */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A Host header (or trusted X-Forwarded-Host) naming a loopback interface: the name and the port written, if any. */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?$/;

const defaultPort = (protocol: string) => (protocol === "https:" || protocol === "https" ? "443" : "80");

/** BASE_URL's host name and port (the scheme's when none is written), or null when its host is not a loopback name. */
function loopbackBase(baseUrl: string): { origin: string; hostname: string; port: string } | null {
  const base = new URL(baseUrl);
  if (!LOOPBACK_NAMES.has(base.hostname)) return null;
  return { origin: base.origin, hostname: base.hostname, port: base.port || defaultPort(base.protocol) };
}

/**
 * The address `npm start` prints: BASE_URL's origin when BASE_URL names this server on a loopback name and the port
 * it listens on (the default, http://localhost:PORT), so the printed address and the links in mails are one origin;
 * BASE_URL as configured when listening on every interface (HOST=0.0.0.0 or ::); otherwise the address listened on
 * (PORT=0, or a BASE_URL served by something in front of this process).
 */
export function printedUrl(baseUrl: string, listening: string, host: string): string {
  if (host === "0.0.0.0" || host === "::") return baseUrl;
  const base = loopbackBase(baseUrl);
  const listen = new URL(listening);
  if (base && LOOPBACK_NAMES.has(listen.hostname) && (listen.port || defaultPort(listen.protocol)) === base.port) {
    return base.origin;
  }
  return listening;
}

/**
 * One origin for a site run on this computer. When BASE_URL's host is a loopback name (localhost, 127.0.0.1 or
 * [::1]), a request whose host is another loopback name with the same port is sent to BASE_URL's origin with the
 * same path and query: mailed sign-in links, sessions and passkeys all live on BASE_URL's origin, so a newcomer who
 * typed the other name is moved to it before signing in. The host judged is Fastify's `request.host`: the Host
 * header, or the X-Forwarded-Host of a proxy TRUST_PROXY trusts.
 *
 * 307 (temporary; the method and body are kept) with `Cache-Control: no-store`, not 301/308: a browser keeps a
 * permanent redirect, and after BASE_URL changed to the other name it would go round in a loop. The target is always
 * BASE_URL's origin followed by the request's path, never a host taken from the request. With any other BASE_URL
 * (a real name, behind a reverse proxy) no hook is added at all.
 */
export function registerLoopbackRedirect(app: FastifyInstance, baseUrl: string): void {
  const base = loopbackBase(baseUrl);
  if (!base) return;
  app.addHook("onRequest", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const match = LOOPBACK_HOST.exec(request.host.toLowerCase());
    if (
      match &&
      match[1] !== base.hostname &&
      (match[2] ?? defaultPort(request.protocol)) === base.port &&
      request.url.startsWith("/")
    ) {
      void reply
        .code(307)
        .header("location", `${base.origin}${request.url}`)
        .header("cache-control", "no-store")
        .send();
      return;
    }
    done();
  });
}
