import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * A public page of a feature, contributed by its manifest (`Feature.pages`): /llms.txt lists it, /sitemap.xml lists it
 * when the app has its route, and the browser and foundation tests visit it. An app built without the feature neither
 * lists nor links it. The header menu and the footer are made of the manifests' `menu` entries (core/web/menu.ts);
 * `placement` here groups the pages in /llms.txt (footer pages under "Optional").
 */
export interface SitePage {
  path: string;
  title: string;
  /** One line on what the page is for (used by /llms.txt and as the meta description). */
  summary: string;
  /** Where the page is linked from (its feature's `menu` entry puts it there). */
  placement: "nav" | "footer" | "none";
}

/** The public pages of an app built with `features`, in the order of src/features.ts. */
export function sitePages(features: readonly { pages?: SitePage[] }[]): SitePage[] {
  return features.flatMap((f) => f.pages ?? []);
}

/** A machine-readable resource of a feature (`Feature.resources`), listed in /llms.txt and on the developers page. */
export interface MachineResource {
  /** Path and query, relative to BASE_URL. */
  path: string;
  title: string;
  summary: string;
  section: "APIs" | "Data";
}

/** The machine-readable resources of an app built with `features`, in the order of src/features.ts. */
export function machineResources(features: readonly { resources?: MachineResource[] }[]): MachineResource[] {
  return features.flatMap((f) => f.resources ?? []);
}

/** One address in /sitemap.xml, relative to BASE_URL, with the date its page last changed when known. */
export interface SitemapEntry {
  path: string;
  lastmod?: string;
}

/**
 * What a feature adds to /sitemap.xml (its manifest's `sitemap`): the site map lists the features' pages (above), then
 * each feature's entries in the order of src/features.ts. It is prepared once per data version: the JSON of every
 * source's `version`, so a source's version must move whenever its entries would change (counts and high-water marks
 * answered from an index, not the rows themselves).
 */
export interface SitemapSource {
  version(db: Kysely<DB>): Promise<unknown>;
  /** At most `limit` entries, newest first where a cap would cut. Absent for a source that only moves the version. */
  entries?(db: Kysely<DB>, limit: number): Promise<SitemapEntry[]>;
  /**
   * A counter this process moves at once on a change that the site map must not wait `freshMs` to show (a moderation
   * decision hiding a page): a new value makes the next request check the versions.
   */
  generation?(): number;
}
