import type { FastifyInstance } from "fastify";
import { type Config, tileOrigin } from "../../config.js";
import { isApiPath } from "./error-handler.js";

/**
 * The security headers every response carries, computed once at start-up: a strict Content-Security-Policy (no
 * inline script, no third-party script; images from this site only, and from the map tile server only when the
 * tile proxy is off), no referrer leakage to other sites, no framing, no MIME sniffing. Public photos and API responses may be used by other sites and apps,
 * hence Cross-Origin-Resource-Policy: cross-origin.
 */
export function securityHeaders(config: Config): Record<string, string> {
  const https = config.baseUrl.startsWith("https:");
  const tiles = tileOrigin(config);
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${tiles === null ? "" : ` ${tiles}`}`,
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join(";");
  return {
    "content-security-policy": csp,
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "cross-origin",
    "origin-agent-cluster": "?1",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-content-type-options": "nosniff",
    "x-dns-prefetch-control": "off",
    "x-download-options": "noopen",
    "x-frame-options": "DENY",
    "x-permitted-cross-domain-policies": "none",
    "x-xss-protection": "0",
    "permissions-policy": "geolocation=(self), camera=(), microphone=(), interest-cohort=()",
    ...(https ? { "strict-transport-security": "max-age=31536000" } : {}),
  };
}

/**
 * The smaller set for machine-readable responses (/api, /data): they are never rendered as documents, so they get
 * OWASP's REST set: a CSP that allows nothing, no framing, no sniffing, no referrer leakage.
 */
export function apiSecurityHeaders(config: Config): Record<string, string> {
  const https = config.baseUrl.startsWith("https:");
  return {
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "cross-origin-resource-policy": "cross-origin",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    ...(https ? { "strict-transport-security": "max-age=31536000" } : {}),
  };
}

/**
 * Sets the security headers and the request id header from one synchronous hook: the headers are the same for
 * every response of a kind, so nothing is parsed or built per request (this keeps cached API answers, such as 304s,
 * cheap).
 */
export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const pageHeaders = securityHeaders(config);
  const apiHeaders = apiSecurityHeaders(config);
  app.addHook("onRequest", (request, reply, done) => {
    reply.headers(isApiPath(request.url) ? apiHeaders : pageHeaders);
    reply.header("x-request-id", request.id);
    done();
  });
}
