import type { Feature } from "../core/context.js";
import { machineResources, sitePages } from "../core/web/sitemap.js";
import type { SiteInfo } from "../core/site.js";
import { NEAR_RADIUS_M } from "../reports/index.js";

/**
 * /llms.txt in the llmstxt.org format: an H1 with the name, a blockquote summary, what the service is and is not,
 * then H2 sections of `- [name](absolute url): note` items, made of the pages and resources the app's features
 * contribute through their manifests (in the order of src/features.ts): nothing of a feature left out.
 */
export function llmsTxt(site: SiteInfo, features: readonly Feature[]): string {
  const url = (path: string) => `${site.baseUrl}${path}`;
  const item = (title: string, path: string, note: string) => `- [${title}](${url(path)}): ${note}`;
  const pages = sitePages(features);
  const resources = machineResources(features);
  const main = pages.filter((p) => p.placement !== "footer" && p.path !== "/");
  const about = pages.filter((p) => p.placement === "footer");
  const section = (name: "APIs" | "Data") =>
    resources.filter((r) => r.section === name).map((r) => item(r.title, r.path, r.summary));
  return [
    `# ${site.villageName} Community Platform`,
    "",
    `> A volunteer-run civic platform for the village of ${site.villageName}: residents report local, non-urgent ` +
      "issues (potholes, streetlights, fly-tipping) on a map, read every public report (or those within " +
      `${NEAR_RADIUS_M} m of a street or landmark of the village: /reports?near=NAME, or those matching words or a ` +
      "reference: /reports?q=WORDS; /search?q=WORDS searches reports and businesses together) and check its status by " +
      "reference number (get its updates by email, or add an update of their own), share and support ideas, follow community projects, sign " +
      "up as volunteers, subscribe to the newsletter, find local businesses, reach their councillors and read " +
      "public statistics.",
    "",
    `It is an independent community project, not a council service: reports may be forwarded to ${site.councilName}, ` +
      "and response times depend on the council. It is not for emergencies (call 999). Reports are public except " +
      "the reporter's name and contact details, which are never published. There are no tracking cookies and " +
      "personal data is never sold.",
    "",
    "Forwarding: a report is sent to the council department responsible for its category, by email or through the " +
      "council's Open311 GeoReport v2 service (with an Idempotency-Key, so a retry never makes a second copy); the " +
      "report's page says where and when it went and gives the council's reference. The reporter's name and email " +
      "go to the council only when they ticked that the council may contact them. Operators set a department's " +
      "delivery method on /admin/departments or with `civic departments delivery`.",
    "",
    "Two open APIs: a schema.org JSON-LD business directory under /api/v1/ (with a static dataset export) and an " +
      "Open311 GeoReport v2 API under /api/v2/ (reading is open; submitting needs an API key); the public reports " +
      "are also offered as RFC 7946 GeoJSON at /api/reports.geojson (bbox, filters, 1,000 an answer, Link rel=next). Every API read and " +
      "every Atom feed carries a strong ETag (send If-None-Match for a 304; feeds also Last-Modified) and allows any " +
      "origin; an address asked with a method it does not take answers 405 with an Allow header. Every text answer " +
      "of 1 KB or more is sent brotli- or gzip-compressed as Accept-Encoding allows, with an ETag per encoding. Both APIs are described " +
      "by the OpenAPI 3.1 document at /openapi.yaml, which is a tested contract: every status, body, required " +
      "field and pattern it gives is what the server does (text never holds control characters or broken Unicode).",
    "",
    "Reports forwarded to a council department with an Open311 service get its answers back: the council's status " +
      "changes and notes appear on the report as “Update from the council” and are emailed to the reporter and followers.",
    "",
    "## Pages",
    "",
    ...main.map((p) => item(p.title, p.path, p.summary)),
    "",
    "## APIs",
    "",
    ...section("APIs"),
    "",
    "## Data",
    "",
    ...section("Data"),
    "",
    "## Optional",
    "",
    ...about.map((p) => item(p.title, p.path, p.summary)),
    "",
  ].join("\n");
}
