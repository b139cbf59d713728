import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";
import { type Config, tileOrigin } from "../../config.js";

/**
 * Security headers for every response: a strict Content-Security-Policy (no inline script, no third-party script;
 * only the map tile server is allowed for images), no referrer leakage to other sites, no framing.
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const https = config.baseUrl.startsWith("https:");
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:", "blob:", tileOrigin(config)],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        manifestSrc: ["'self'"],
        workerSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Public photos and API responses may be used by other sites and apps.
    crossOriginResourcePolicy: { policy: "cross-origin" },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xFrameOptions: { action: "deny" },
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.header("permissions-policy", "geolocation=(self), camera=(), microphone=(), interest-cohort=()");
  });
}
