import { randomUUID } from "node:crypto";
import { join } from "node:path";
import formbody from "@fastify/formbody";
import rateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { type Config, trustProxyOption } from "./config.js";
import type { Civic, Feature } from "./core/context.js";
import { mailWorkerPlugin } from "./core/mail/plugin.js";
import { registerStaffConsole } from "./core/staff/console.js";
import { FEATURES } from "./features.js";
import { type Database, openDatabase } from "./core/db/database.js";
import { migrateToLatest } from "./core/db/migrations/index.js";
import { sharedSecret } from "./core/db/shared-secrets.js";
import { FixedWindowLimiter } from "./core/limits/fixed-window.js";
import { databaseRateLimitStore } from "./core/limits/rate-limit-store.js";
import { scheduledJobs } from "./core/jobs/schedule.js";
import { checkSameOrigin, FormTokens, formField } from "./core/http/csrf.js";
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from "./core/http/error-handler.js";
import { registerCompression } from "./core/http/compression.js";
import { registerDurableAnswers } from "./core/http/durable-answers.js";
import { AppError } from "./core/http/errors.js";
import { checkInput, DOCUMENTED_PATTERN, finiteNumbers } from "./core/http/input.js";
import { AccessLogController, loggerOptions, requestLoggerFactory } from "./core/http/logger.js";
import { markSecrets, routeSecrets } from "./core/http/secret-paths.js";
import { multipartForMultipartRequests } from "./core/media/multipart.js";
import { registerUploads } from "./core/media/uploads.js";
import { registerLoopbackRedirect } from "./core/http/loopback.js";
import { registerSafeLocations } from "./core/http/redirect.js";
import { registerPrivateResponses } from "./core/http/private-responses.js";
import { registerSecurityHeaders } from "./core/http/security.js";
import { methodNotAllowed, overlongParams, ROUTER_OPTIONS } from "./core/http/methods.js";
import { isStaffPath } from "./core/staff/guard.js";
import { type AssetManifest, isPrecompressedAsset, loadAssetManifest } from "./core/web/assets.js";
import { publicDir } from "./core/web/paths.js";
import { isDatabaseEmpty, seedDemoVillage } from "./demo/seed.js";
import { mediaStorage } from "./core/media/storage.js";
import { swaggerOptions } from "./openapi/document.js";
import { NotFoundContent } from "./site/content/not-found.js";
import { ServerErrorContent } from "./site/content/server-error.js";
import { requestClient } from "./core/http/client-address.js";

export interface AppOptions {
  /** An already opened database (tests); otherwise one is opened from the config. */
  database?: Database;
  /** The clock (tests). */
  now?: () => Date;
  /** Overrides the logger (tests pass false). */
  logger?: FastifyServerOptions["logger"];
  /** Overrides the per-request log lines (default: one access line per request, see AccessLogController). */
  logController?: FastifyServerOptions["logController"];
  assets?: AssetManifest;
  /** Cookie-free visitor statistics (default on; the benchmark compares with them off). */
  analytics?: boolean;
  /** The features to build with (default: all of src/features.ts, in its order). */
  features?: readonly Feature[];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Request ids: unique per process start (a random prefix) plus a counter, cheaper than a UUID per request. */
const requestIdPrefix = randomUUID().slice(0, 8);
let requestCounter = 0;
function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${requestIdPrefix}-${requestCounter.toString(36).padStart(6, "0")}`;
}

/**
 * Builds the whole platform as a Fastify instance, without listening: opens the database, runs migrations, loads
 * the demo village into an empty database when SEED_DEMO is on, and registers every feature.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  // With LOG_LEVEL=silent there is no logger at all, rather than one that discards every line.
  const logger = options.logger ?? (config.logLevel === "silent" ? false : loggerOptions(config.logLevel));
  const logController = options.logController ?? new AccessLogController({ notModified: config.logNotModified });
  const app = Fastify({
    logger,
    // A request's child logger is made only when something logs through it (the access line does not need it).
    ...(logger ? { childLoggerFactory: requestLoggerFactory } : {}),
    logController,
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 1024 * 1024,
    // Slow clients (docs/configuration.md "Slow clients"): a whole request must arrive within
    // REQUEST_TIMEOUT_SECONDS and idle keep-alive connections close after KEEP_ALIVE_SECONDS; headersTimeout is set
    // on the server below. Uploads also have a minimum rate (core/media/uploads.ts).
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    // A connection on which nothing moves either way (a client that stopped reading a download) is closed.
    connectionTimeout: config.timeouts.idleMs,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    ajv: {
      customOptions: {
        coerceTypes: "array",
        removeAdditional: false,
        useDefaults: true,
        keywords: [DOCUMENTED_PATTERN],
      },
      plugins: [finiteNumbers],
    },
    routerOptions: ROUTER_OPTIONS,
    // Bad percent-encodings in the path and over-long parameters are answered in the route family's format too.
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.headersTimeout = Math.min(config.timeouts.headersMs, config.timeouts.requestMs);

  const database = options.database ?? openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const now = options.now ?? (() => new Date());
  const features = (options.features ?? FEATURES).filter((f) => options.analytics !== false || f.name !== "analytics");
  const civic: Civic = {
    config,
    database,
    site: {
      villageName: config.village.name,
      councilName: config.village.councilName,
      contactEmail: config.village.contactEmail,
      baseUrl: config.baseUrl,
    },
    errorPages: { notFound: NotFoundContent, serverError: ServerErrorContent },
    assets: options.assets ?? loadAssetManifest(),
    formTokens: new FormTokens(config.sessionSecret, () => now().getTime()),
    limits: new FixedWindowLimiter(
      () => database.db,
      config.sessionSecret,
      () => civic.now(),
    ),
    now,
    workers: [],
    features,
    routes: [],
  };
  app.decorate("civic", civic);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A route with a secret in its address (an emailed link's token) marks its requests, so that log lines write
    // the address without it (core/http/secret-paths.ts); other routes get nothing added.
    const secrets = routeSecrets(route);
    if (secrets) route.onRequest = [markSecrets(secrets), ...[route.onRequest ?? []].flat()];
    const querystring = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    const query = Object.keys(querystring?.properties ?? {});
    for (const method of methods) {
      civic.routes.push({
        method,
        url: route.url,
        ...(secrets ? { secretParams: secrets.names } : {}),
        ...(query.length > 0 ? { query } : {}),
      });
    }
  });

  app.addHook("onClose", async () => {
    if (logController instanceof AccessLogController) logController.writeNotModified();
    await Promise.all(civic.workers.map((w) => w.stop()));
    await database.close();
  });

  try {
    await migrateToLatest(database.db);
    if (!config.sessionSecretFromEnv) {
      // Instances sharing a database sign with one secret: the first instance's (core/db/shared-secrets.ts).
      config = { ...config, sessionSecret: await sharedSecret(database.db, "session", config.sessionSecret, now()) };
      civic.config = config;
      civic.formTokens = new FormTokens(config.sessionSecret, () => now().getTime());
      civic.limits = new FixedWindowLimiter(
        () => database.db,
        config.sessionSecret,
        () => civic.now(),
      );
    }
    // Several instances may start together on one empty database: the seed runs once (see seedDemoVillage).
    if (
      config.seedDemo &&
      (await isDatabaseEmpty(database.db)) &&
      (await seedDemoVillage(database.db, now(), mediaStorage(config)))
    ) {
      app.log.info("loaded the demo village into the empty database");
    }
  } catch (error) {
    await database.close();
    throw error;
  }

  // First, so a request on the other loopback name goes to BASE_URL's origin before anything else runs.
  registerLoopbackRedirect(app, config.baseUrl);
  // Then the app's first check: a path parameter past 200 code points is a 414, as the router's own limit (counted in
  // UTF-16 units) answers the longer ones (core/http/methods.ts).
  app.addHook("onRequest", overlongParams);
  registerSecurityHeaders(app, config);
  registerSafeLocations(app);
  // Nothing served to a signed-in person, or marked personal, is stored by any cache (the service worker included).
  registerPrivateResponses(app);
  registerErrorHandling(app);

  await app.register(formbody, { bodyLimit: 256 * 1024 });
  // Fields are read before the checks, files only after them, streamed to disk: see core/media/uploads.ts. The
  // plugin's per-request hooks run for multipart requests only (core/media/multipart.ts).
  await app.register(multipartForMultipartRequests, {
    limits: {
      fileSize: config.uploads.maxPhotoBytes,
      files: Math.max(config.uploads.maxPhotos, 1),
      fields: 100,
      fieldSize: 64 * 1024,
      parts: 120,
    },
  });
  await registerUploads(app, {
    dataDir: config.dataDir,
    maxConcurrent: config.uploads.maxConcurrent,
    slotWaitMs: config.uploads.slotWaitMs,
    minBytesPerSecond: config.timeouts.uploadMinBytesPerSecond,
    rateWindowMs: config.timeouts.uploadWindowMs,
  });
  // After the body parsers and the upload reader (hooks run in the order they were added): every route's input is
  // checked once.
  app.addHook("preValidation", checkInput);
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    // IPv6 clients by /64, IPv4-mapped addresses as IPv4 (core/http/client-address.ts), like every other limit.
    keyGenerator: requestClient,
    // On PostgreSQL counted in the database, so instances sharing it share each client's allowance. SQLite serves
    // one process, whose memory is the cheaper place (a counter row would cost a synced write on every request).
    ...(database.dialect === "postgres" ? { store: databaseRateLimitStore(() => civic.limits) } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError("rate_limited", `Too many requests. Please try again in ${Math.ceil(context.ttl / 1000)} seconds.`, {
        headers: { "retry-after": String(Math.ceil(context.ttl / 1000)) },
      }),
  });
  // The built assets: public files, for which the session is never read.
  await app.register(async (scope) => {
    scope.addHook("onRoute", (route) => void (route.config = { ...route.config, session: false }));
    await scope.register(fastifyStatic, {
      root: join(publicDir, "assets"),
      prefix: "/assets/",
      wildcard: false,
      index: false,
      cacheControl: false,
      // scripts/build.mjs writes a .br and a .gz file beside every compressible asset: sent as they are to a client
      // that accepts them (each with its own ETag, from its own file), never compressed per request.
      preCompressed: true,
      setHeaders(res, path) {
        const file = path.replace(/\.(?:br|gz)$/, "");
        // File names carry a content hash, so they never change.
        res.setHeader(
          "cache-control",
          file.endsWith("manifest.json") ? "no-cache" : "public, max-age=31536000, immutable",
        );
        if (isPrecompressedAsset(file)) res.setHeader("vary", "Accept-Encoding");
      },
    });
  });
  await app.register(swagger, swaggerOptions(config));

  // Every browser form post carries a valid form token and comes from our own origin.
  const ownOrigins = [new URL(config.baseUrl).origin];
  const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);
  app.addHook("preHandler", (request, _reply, done) => {
    // Only for pages' forms: an API family's routes authenticate otherwise, and an unknown address reads no body.
    const { family, csrf } = request.routeOptions.config;
    if (!unsafeMethods.has(request.method) || family !== undefined || csrf === false || request.is404) {
      done();
      return;
    }
    try {
      checkSameOrigin(request, ownOrigins);
      const token = formField(request.body, "_csrf");
      // Signed-in people's forms carry a token bound to their session (see accounts/session-csrf.ts).
      if (!civic.formTokens.verify(token) || (request.viewer && !request.viewer.checkFormToken(token))) {
        throw new AppError(
          "csrf_failed",
          "This form has expired or was not sent from this website. Please reload the page and try again.",
        );
      }
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  // Before the features' routes: each write route gets the hook that waits until its writes are on disk.
  registerDurableAnswers(app, database);
  // After it: the compression hook is each route's last onSend hook (core/http/compression.ts).
  registerCompression(app);
  // The mail outbox worker is the floor's: every feature queues mail through it.
  await app.register(mailWorkerPlugin);
  for (const feature of features) for (const plugin of feature.plugins ?? []) await app.register(plugin);
  // A known path asked with a method it lacks is a 405 with Allow (core/http/methods.ts), after the session is
  // known (so the HTML answer shows who is signed in) and before bodies, limits and form checks. The staff console
  // adds the same hook after its guard.
  app.addHook("onRequest", methodNotAllowed(isStaffPath));
  // Everything under /admin is the staff console: one scope with its guard, whichever feature adds the page.
  await registerStaffConsole(app, features);
  for (const feature of features) {
    for (const { plugin, prefix } of feature.routes ?? []) await app.register(plugin, prefix ? { prefix } : {});
  }
  for (const feature of features) civic.workers.push(...(feature.workers?.(civic, app.log) ?? []));
  civic.workers.push(scheduledJobs(civic, app.log));

  return app;
}
