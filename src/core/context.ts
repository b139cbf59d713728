import type { FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import type { ErrorPageContent, SiteInfo } from "./site.js";
import type { Database } from "./db/database.js";
import type { FormTokens } from "./http/csrf.js";
import type { FixedWindowLimiter } from "./limits/fixed-window.js";
import type { AssetManifest } from "./web/assets.js";
import type { PageContext } from "./web/layout.js";

/** A background job (mail outbox, …) that the server starts and stops with the process. */
export interface Worker {
  name: string;
  start(): void;
  /** Resolves when the worker has finished what it was doing. */
  stop(): Promise<void>;
}

/** What the app shares with every feature: decorated on the Fastify instance as `app.civic`. */
export interface Civic {
  config: Config;
  database: Database;
  site: SiteInfo;
  /** What the error pages say (the site feature's words, passed in by the composition root). */
  errorPages: ErrorPageContent;
  assets: AssetManifest;
  formTokens: FormTokens;
  /**
   * The app's one rate limiter: fixed windows counted in the database (so every process sharing it counts
   * together), subjects kept as keyed hashes. Every feature's limit goes through it, as does @fastify/rate-limit's
   * store on PostgreSQL.
   */
  limits: FixedWindowLimiter;
  /** The clock; tests replace it. */
  now(): Date;
  workers: Worker[];
  /** Every route registered, for the OpenAPI coverage check and the site map. */
  routes: { method: string; url: string }[];
}

/** Who is signed in, as every page needs to know it. Set by the accounts feature; null for anonymous requests. */
export interface Viewer {
  accountId: string;
  /** What the header shows: the account's name, or its email address when no name is set. */
  label: string;
  role: "resident" | "moderator" | "admin";
  sessionId: number;
  /** When this session was started by a sign-in (ISO 8601): sensitive changes ask for a recent one. */
  signedInAt: string;
  /** A form token bound to this session (it is also a valid ordinary form token). */
  formToken(): string;
  /** Whether a posted form token was issued for this session. */
  checkFormToken(token: unknown): boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    civic: Civic;
  }
  interface FastifyRequest {
    viewer: Viewer | null;
  }
  interface FastifyContextConfig {
    /** false for form-like POST routes that are not browser forms (APIs authenticate otherwise). */
    csrf?: boolean;
    /**
     * true for routes whose answers carry personal data even to a visitor who is not signed in (pages opened by a
     * link token, data downloads): they are never stored by any cache (core/http/private-responses.ts).
     */
    personal?: boolean;
  }
}

/** The context a page needs to render the layout. */
export function pageContext(request: FastifyRequest): PageContext {
  const civic = request.server.civic;
  return {
    site: civic.site,
    path: request.url.split("?")[0] ?? "/",
    assets: civic.assets,
    csrfToken: request.viewer ? request.viewer.formToken() : civic.formTokens.issue(),
    viewer: request.viewer ? { label: request.viewer.label } : null,
  };
}
