import { personalRoute } from "./http/private-responses.js";
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from "fastify";
import type { Command } from "./cli.js";
import type { Job } from "./jobs/runner.js";
import type { ModeratedKind } from "./moderation.js";
import type { PersonalDataSource } from "./personal-data.js";
import type { StaffNavEntry } from "./staff/nav.js";
import type { StaffScope } from "./staff/guard.js";
import type { Viewer } from "./viewer.js";
import type { RouteEntry } from "./http/secret-paths.js";
import type { Worker } from "./worker.js";
import type { Config } from "../config.js";
import type { ErrorPageContent, SiteInfo } from "./site.js";
import type { Database } from "./db/database.js";
import type { FormTokens } from "./http/csrf.js";
import type { RouteFamily } from "./http/errors.js";
import type { FixedWindowLimiter } from "./limits/fixed-window.js";
import type { AssetManifest } from "./web/assets.js";
import { deviceOwnerKey } from "./web/device-owner.js";
import type { PageContext } from "./web/layout.js";
import type { MachineResource, SitePage, SitemapSource } from "./web/sitemap.js";
import { type FeedLink, type MenuEntry, siteMenu } from "./web/menu.js";
import type { SearchSource } from "./search.js";
import type { HomeBlock, NotFoundBlock } from "./web/blocks.js";

export type { Viewer, Worker };

/**
 * What a feature contributes to the platform, read by the composition root (src/app.ts, src/cli.ts) from the one
 * ordered list in src/features.ts. Nothing registers itself by being imported: a feature that is not in the list
 * has no routes, no staff pages, no personal data, no jobs and no commands. (Decidim's component manifests are the
 * model.)
 */
export interface Feature {
  /** A short name ("reports"), as in docs/architecture.md "Features". */
  name: string;
  /**
   * Plugins that act on the whole app (fastify-plugin wrapped: the session, the visitor counting), registered before
   * any feature's routes, in list order.
   */
  plugins?: FastifyPluginAsync[];
  /** The feature's public routes, each registered as its own plugin, with a prefix when given. */
  routes?: { plugin: FastifyPluginAsync; prefix?: string }[];
  /**
   * The feature's pages in the staff console: registered inside the console's scope (src/core/staff/console.ts),
   * behind its guard (moderators and admins; each route may ask for admin), and listed in its navigation.
   */
  staff?: { pages: StaffNavEntry[]; routes?: (scope: StaffScope) => Promise<void> | void };
  /**
   * What the feature stores about a person: collected for the data download, listed as consents and erased. The
   * sources of all features are asked in list order and erased in the reverse order (so the account goes last).
   */
  personalData?: PersonalDataSource[];
  /** Kinds of content people can flag and moderators can hide or remove. */
  moderatedKinds?: ModeratedKind[];
  /** Periodic jobs, run by the one job runner (src/core/jobs/runner.ts) in every server process under a lease. */
  jobs?: (civic: Civic) => Job[];
  /** Background workers the server starts and stops with the process. */
  workers?: (civic: Civic, log: FastifyBaseLogger) => Worker[];
  /**
   * The feature's public pages (core/web/sitemap.ts): listed in /llms.txt and /sitemap.xml in list order, so an app
   * built without the feature does not list them.
   */
  pages?: SitePage[];
  /** The feature's machine-readable resources (APIs, feeds, data), listed in /llms.txt and on /developers. */
  resources?: MachineResource[];
  /** What the feature adds to /sitemap.xml (src/site/sitemap-xml.ts), in list order after the features' pages. */
  sitemap?: SitemapSource[];
  /**
   * The feature's links in the site's header menu and footer (core/web/menu.ts), shown by their `order`, ties in list
   * order: an app built without the feature has no link to it.
   */
  menu?: MenuEntry[];
  /** The feature's blocks on the home page (core/web/blocks.ts), which the site feature writes. */
  home?: HomeBlock[];
  /** The feature's items in the 404 page's "What you can do next" list (core/web/blocks.ts). */
  notFound?: NotFoundBlock[];
  /** The feeds every page points to in its <head> (core/web/menu.ts), in list order. */
  feeds?: FeedLink[];
  /**
   * What of the feature can be searched for (core/search.ts): the site's search page (/search) asks every source of
   * the app, in list order, without knowing the features.
   */
  search?: SearchSource[];
  /** `civic` commands, by name ("users add"). */
  commands?: Record<string, Command>;
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
  /** The features this app was built with, in the order of src/features.ts. */
  features: readonly Feature[];
  /**
   * Every route registered, for the OpenAPI coverage check, the site map and the log's redaction: with the path
   * parameters that carry a secret (core/http/secret-paths.ts) and the names its query schema declares.
   */
  routes: RouteEntry[];
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
    /**
     * The API family of the scope the route was registered in (set by registerErrorHandling for every route of an
     * API family's scope; absent for pages): its errors' format, and no form-token check.
     */
    family?: RouteFamily;
    /**
     * Whether the session cookie is read for this route (request.viewer). Pages: yes unless false (static files,
     * photos); an API family's routes: no unless true (the installed app's endpoint under /api/app).
     */
    session?: boolean;
    /**
     * false for routes that encode their answers themselves (the business API's prepared representations): the
     * compression hook (core/http/compression.ts) is not added to them.
     */
    compress?: boolean;
  }
}

/**
 * The page's own address on BASE_URL, for its link preview and canonical link: only for a page that is the same for
 * everyone (nobody signed in, a route that matched, not personal or opened by an emailed link), without the query.
 */
function shareUrl(request: FastifyRequest): string | null {
  if (request.viewer !== null) return null;
  const route = request.routeOptions;
  if (!route.url || personalRoute(route)) return null;
  return `${request.server.civic.site.baseUrl}${request.url.split("?")[0] ?? "/"}`;
}

/** The context a page needs to render the layout. */
export function pageContext(request: FastifyRequest): PageContext {
  const civic = request.server.civic;
  return {
    site: civic.site,
    path: request.url.split("?")[0] ?? "/",
    assets: civic.assets,
    csrfToken: request.viewer ? request.viewer.formToken() : civic.formTokens.issue(),
    signedIn: request.viewer !== null,
    shareUrl: shareUrl(request),
    deviceOwner: deviceOwnerKey(civic.config.sessionSecret, request.viewer?.accountId ?? null),
    menu: siteMenu(civic.features),
  };
}
