import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * The one list of the site's public pages. /llms.txt, /sitemap.xml and the browser accessibility tests read it, so a
 * new page joins every one of them by being added here. The header menu and the footer are made of the features'
 * manifests instead (`Feature.menu`, core/web/menu.ts), so an app built without a feature does not link to it;
 * `placement` here groups the pages in /llms.txt.
 */
export interface SitePage {
  path: string;
  title: string;
  /** One line on what the page is for (used by /llms.txt and as the meta description). */
  summary: string;
  /** Where the page is linked from (its feature's `menu` entry puts it there). */
  placement: "nav" | "footer" | "none";
  /** Label in the navigation, when shorter than the title. */
  navLabel?: string;
}

export const sitePages: SitePage[] = [
  { path: "/", title: "Home", summary: "What the platform is and what you can do here.", placement: "none" },
  {
    path: "/report",
    title: "Report an issue",
    navLabel: "Report an issue",
    summary: "Report a local, non-urgent problem such as a pothole, a broken streetlight or fly-tipping.",
    placement: "nav",
  },
  {
    path: "/reports",
    title: "Reports",
    summary:
      "Every public report, newest first, those near a street or landmark, or those matching words or a reference, with a map, filters and an Atom feed.",
    placement: "nav",
  },
  {
    path: "/search",
    title: "Search",
    summary: "Search the site's reports (by words, place or reference) and local businesses.",
    placement: "none",
  },
  {
    path: "/alerts",
    title: "Email me about new reports",
    summary:
      "Get an email about new reports near a place, on a street, in a category or anywhere in the village, at once or daily (double opt-in, one-click unsubscribe); the same choices as Atom feeds: /reports.atom?near=NAME&radius=200|500|1000 or ?street=ID, with category and status.",
    placement: "none",
  },
  {
    path: "/status",
    title: "Check a report's status",
    summary: "Look up a report by its reference number.",
    placement: "none",
  },
  {
    path: "/ideas",
    title: "Ideas",
    summary: "Residents' ideas to improve the village: share one, support others, follow their status.",
    placement: "nav",
  },
  {
    path: "/projects",
    title: "Projects",
    summary: "Community projects: what is planned, under way and done.",
    placement: "nav",
  },
  {
    path: "/volunteer",
    title: "Volunteer",
    summary: "Sign up to volunteer, in general or for a project's role.",
    placement: "nav",
  },
  {
    path: "/newsletter",
    title: "Newsletter",
    summary: "Get village news by email (double opt-in, one-click unsubscribe).",
    placement: "nav",
  },
  {
    path: "/newsletter/archive",
    title: "Newsletter archive",
    summary: "Every newsletter sent, newest first, with an Atom feed.",
    placement: "none",
  },
  {
    path: "/ideas/new",
    title: "Share an idea",
    summary: "Propose an idea: title, description, optional category, place and photo.",
    placement: "none",
  },
  {
    path: "/businesses",
    title: "Local businesses",
    navLabel: "Businesses",
    summary: "Directory of local businesses with opening hours and contact details.",
    placement: "nav",
  },
  {
    path: "/councillors",
    title: "Your councillors",
    navLabel: "Councillors",
    summary: "Who represents the village and how to reach them.",
    placement: "nav",
  },
  {
    path: "/stats",
    title: "Report statistics",
    summary:
      "How many problems are reported, by month, category and status, the share fixed and the median time to fix.",
    placement: "footer",
  },
  {
    path: "/sign-in",
    title: "Sign in",
    summary: "Sign in by email link or code, password or passkey, to list your reports and manage your data.",
    placement: "none",
  },
  {
    path: "/my-data",
    title: "Your personal data",
    summary: "Download or erase what the platform holds under your email address, with or without an account.",
    placement: "footer",
  },
  { path: "/about", title: "About this platform", summary: "Who runs the platform and why.", placement: "footer" },
  {
    path: "/terms",
    title: "Terms of use",
    summary: "Content rules, moderation, suspension and the licence you grant for your reports.",
    placement: "footer",
  },
  {
    path: "/privacy",
    title: "Privacy notice",
    summary: "What we store, why, for how long, and your rights. No tracking cookies; data never sold.",
    placement: "footer",
  },
  {
    path: "/accessibility",
    title: "Accessibility statement",
    summary: "How accessible the platform is (target WCAG 2.1 AA) and how to tell us about problems.",
    placement: "footer",
  },
  {
    path: "/developers",
    title: "Developers and open data",
    summary: "The open APIs (business directory JSON-LD, Open311), the dataset export, API keys and examples.",
    placement: "footer",
  },
];

/** Machine-readable resources, listed in /llms.txt and on the developers page. */
export interface MachineResource {
  /** Path and query, relative to BASE_URL. */
  path: string;
  title: string;
  summary: string;
  section: "APIs" | "Data";
}

export const machineResources: MachineResource[] = [
  {
    path: "/api/v1/businesses",
    title: "Business directory API",
    summary:
      "All local businesses as a schema.org ItemList in JSON-LD; filter with category, schemaType and q (full-text search, plurals and accents folded).",
    section: "APIs",
  },
  {
    path: "/api/v1/diff?since=2026-01-01",
    title: "Business directory diff feed",
    summary: "What was added, updated and removed since a date (YYYY-MM-DD), to keep a copy in sync.",
    section: "APIs",
  },
  {
    path: "/api/v2/discovery.json",
    title: "Open311 GeoReport v2 discovery",
    summary: "Where the Open311 endpoints are and which formats they speak (JSON and XML).",
    section: "APIs",
  },
  {
    path: "/api/v2/services.json",
    title: "Open311 services",
    summary: "The report categories, with extra questions described at /api/v2/services/{service_code}.json.",
    section: "APIs",
  },
  {
    path: "/api/v2/requests.json",
    title: "Open311 requests",
    summary: "Public reports, newest first; POST with an api_key to submit one.",
    section: "APIs",
  },
  {
    path: "/api/reports.geojson",
    title: "Public reports as GeoJSON",
    summary:
      "Public reports with a position as an RFC 7946 FeatureCollection (application/geo+json), newest first, at most 1,000 an answer (Link rel=next for more); filter with bbox=west,south,east,north, category, status and hide_closed=true.",
    section: "APIs",
  },
  {
    path: "/api/v1/vocabulary",
    title: "Business directory vocabulary",
    summary:
      "The directory's own JSON-LD terms (category, dateCreated, dateModified), which schema.org does not define for LocalBusiness.",
    section: "Data",
  },
  {
    path: "/data/businesses-canonical.json",
    title: "Business dataset export",
    summary: "The full canonical business dataset as one static JSON file (ODbL 1.0), with ETag for caching.",
    section: "Data",
  },
  {
    path: "/openapi.yaml",
    title: "OpenAPI description",
    summary:
      "OpenAPI 3.1 description of every public API endpoint (also at /.well-known/openapi.yaml and /openapi.json).",
    section: "Data",
  },
  {
    path: "/stats.json",
    title: "Report statistics",
    summary:
      "The figures of /stats as JSON: public reports of the last 12 months per month, by category and status, share fixed, median days to fix, and per category and department the median days to a first response and to fixed and the fixes confirmed by reporters.",
    section: "Data",
  },
  {
    path: "/ideas.atom",
    title: "Ideas feed",
    summary:
      "Atom feed of residents' published ideas, with their status and number of supporters (ETag and Last-Modified for conditional polls, any origin).",
    section: "Data",
  },
  {
    path: "/newsletter/archive.atom",
    title: "Newsletter feed",
    summary: "Atom feed of the newsletters sent (ETag and Last-Modified for conditional polls, any origin).",
    section: "Data",
  },
  {
    path: "/reports.atom",
    title: "New reports feed",
    summary:
      "Atom feed of new public reports; /reports/{category}.atom for one category (ETag and Last-Modified for conditional polls, any origin).",
    section: "Data",
  },
];

/** One address in /sitemap.xml, relative to BASE_URL, with the date its page last changed when known. */
export interface SitemapEntry {
  path: string;
  lastmod?: string;
}

/**
 * What a feature adds to /sitemap.xml (its manifest's `sitemap`): the site map lists the floor's pages (above), then
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
