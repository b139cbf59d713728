import { afterAll, beforeAll, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { reportSubmission } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 34, link previews: a public page shared in a chat shows its title, description and (for a report with a
 * photo) its first public photo: OpenGraph, a Twitter card and the canonical link, all on BASE_URL and nothing from a
 * third party. Never on a page for one person: signed in, staff, or opened by an emailed link.
 */
describeEachDb("link previews", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  const meta = (html: string, key: string) =>
    new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)"`).exec(html)?.[1] ?? null;
  const canonical = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1] ?? null;

  it("every public page has a preview and a canonical link of its own address on BASE_URL", async () => {
    const base = t.app.civic.site.baseUrl;
    const paths = sitePages(FEATURES)
      .map((p) => p.path)
      .filter((path) => t.app.hasRoute({ method: "GET", url: path }));
    expect(paths.length).toBeGreaterThanOrEqual(10);
    for (const path of paths) {
      const html = (await t.app.inject(`${path}?utm_source=chat`)).body;
      expect(canonical(html), path).toBe(`${base}${path}`);
      expect(meta(html, "og:url"), path).toBe(`${base}${path}`);
      expect(meta(html, "og:title"), path).toBeTruthy();
      expect(meta(html, "og:description"), path).toBeTruthy();
      expect(meta(html, "og:type"), path).toBe("website");
      expect(meta(html, "twitter:card"), path).toBe("summary");
      expect(meta(html, "og:image")?.startsWith(`${base}/`), path).toBe(true);
    }
  });

  it("a report's preview shows its first photo, from this site, as a large card", async () => {
    const base = t.app.civic.site.baseUrl;
    const { reference } = await submitReport(
      t.app.civic,
      reportSubmission({ photos: [{ data: await jpegWithGps(800, 600) }] }),
    );
    const html = (await t.app.inject(`/reports/${reference}`)).body;
    const image = meta(html, "og:image");
    expect(image).toMatch(new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/photos/[^/]+\\.jpg$`));
    expect(meta(html, "twitter:card")).toBe("summary_large_image");
    expect((await t.app.inject(image!.slice(base.length))).statusCode).toBe(200);
  });

  it("pages for one person have no preview: signed in, staff, an unknown address", async () => {
    const resident = await signInAs(t.app, "preview.resident@example.org", "resident");
    const admin = await signInAs(t.app, "preview.admin@example.org", "admin");
    for (const [who, path] of [
      [resident, "/account"],
      [resident, "/reports"],
      [admin, "/admin/reports"],
    ] as const) {
      const html = (await who.get(path)).body;
      expect(canonical(html), path).toBeNull();
      expect(meta(html, "og:url"), path).toBeNull();
    }
    const missing = (await t.app.inject("/no-such-page")).body;
    expect(canonical(missing)).toBeNull();
  });
});
