import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/** What makes the site an installable app, over HTTP: manifest, icons, service worker, offline and drafts pages. */
describe("the installable app's resources", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("sqlite", { seed: true });
  });
  afterAll(async () => t?.close());

  it("serves a web app manifest with 192 and 512 px icons, one of them maskable", async () => {
    const res = await t.app.inject("/manifest.webmanifest");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("application/manifest+json");
    const manifest = res.json() as {
      name: string;
      short_name: string;
      start_url: string;
      scope: string;
      display: string;
      theme_color: string;
      icons: { src: string; sizes: string; purpose: string }[];
    };
    expect(manifest).toMatchObject({ start_url: "/", scope: "/", display: "standalone" });
    expect(manifest.name).toContain("Community Platform");
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual([
      "192x192 any",
      "512x512 any",
      "512x512 maskable",
    ]);
    for (const icon of manifest.icons) {
      const png = await t.app.inject(icon.src);
      expect(png.statusCode).toBe(200);
      expect(png.headers["content-type"]).toBe("image/png");
      const meta = await sharp(png.rawPayload).metadata();
      expect(`${meta.width}x${meta.height}`).toBe(icon.sizes);
    }
    expect((await t.app.inject("/icons/../../package.json")).statusCode).toBe(404);
    expect((await t.app.inject("/icons/other.png")).statusCode).toBe(404);
  });

  it("serves the service worker from the root, never cached without revalidation, allowed the whole site", async () => {
    const res = await t.app.inject("/sw.js");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/javascript");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["service-worker-allowed"]).toBe("/");
    // The asset list it keeps is the build's, so a new build installs a new worker.
    expect(res.body).toContain(t.app.civic.assets.url("site.css"));
    expect(res.body).toContain(t.app.civic.assets.url("report-map.js"));
  });

  it("links the manifest and the enhancement script (which registers the worker) from every page", async () => {
    for (const path of [...sitePages(FEATURES).map((p) => p.path), "/report/drafts", "/offline", "/no-such-page"]) {
      const res = await t.app.inject(path);
      if (res.statusCode === 404 && path !== "/no-such-page") continue;
      expect(res.body, path).toContain('<link rel="manifest" href="/manifest.webmanifest"/>');
      expect(res.body, path).toContain(`src="${t.app.civic.assets.url("enhance.js")}"`);
      expect(res.body.split(t.app.civic.assets.url("enhance.js")).length, path).toBe(2);
    }
    const csp = (await t.app.inject("/")).headers["content-security-policy"] as string;
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("manifest-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
  });

  it("has an offline page and a drafts page that are not indexed", async () => {
    const offline = await t.app.inject("/offline");
    expect(offline.statusCode).toBe(200);
    expect(offline.body).toContain("You are offline");
    expect(offline.headers["x-robots-tag"]).toBe("noindex");
    const drafts = await t.app.inject("/report/drafts");
    expect(drafts.statusCode).toBe(200);
    expect(drafts.body).toContain("Reports saved on this device");
    expect(drafts.body).toContain(t.app.civic.assets.url("drafts-page.js"));
  });

  it("documents Idempotency-Key in the OpenAPI description: the header and the 409 and 422 answers", async () => {
    type Operation = { parameters?: { in: string; name: string; required?: boolean }[]; responses: object };
    const doc = (await t.app.inject("/openapi.json")).json() as {
      info: { description: string };
      paths: Record<string, { post?: Operation }>;
    };
    for (const [path, required] of [
      ["/api/v2/requests.{format}", false],
      ["/api/app/reports", true],
    ] as const) {
      const post = doc.paths[path]?.post;
      expect(post?.parameters?.find((p) => p.in === "header" && p.name === "idempotency-key")?.required).toBe(required);
      expect(Object.keys(post?.responses ?? {})).toEqual(expect.arrayContaining(["409", "422"]));
    }
    expect(doc.info.description).toContain("draft-ietf-httpapi-idempotency-key-header");
  });
});
