import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { submitReport } from "../reports/submit.js";
import { SITEMAP_LIMITS, sitemapRoutes } from "./sitemap-xml.js";

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] as string);

describeEachDb("/sitemap.xml", (dialect) => {
  let t: TestApp;
  let at = new Date("2026-11-22T12:00:00.000Z").getTime();
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(at),
      env: { BASE_URL: "https://wrenford.example.org" },
      routes: (app) => {
        void app.register(sitemapRoutes, { prefix: "/small", limits: { maxUrlsPerFile: 10 } });
        void app.register(sitemapRoutes, { prefix: "/tiny", limits: { maxBytesPerFile: 1500 } });
      },
    });
  });
  afterAll(async () => t?.close());

  async function addReport(title: string) {
    return submitReport(t.app.civic, reportSubmission({ title }));
  }

  it("has an ETag and answers If-None-Match with 304", async () => {
    const res = await t.app.inject("/sitemap.xml");
    expect(res.statusCode).toBe(200);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers["cache-control"]).toBe("public, max-age=3600");
    for (const header of [etag, `W/${etag}`, `"x", ${etag}`]) {
      const again = await t.app.inject({ url: "/sitemap.xml", headers: { "if-none-match": header } });
      expect(again.statusCode, header).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.etag).toBe(etag);
      expect(again.headers["cache-control"]).toBe("public, max-age=3600");
    }
    const head = await t.app.inject({ method: "HEAD", url: "/sitemap.xml" });
    expect(head.headers.etag).toBe(etag);
  });

  it("is prepared once per data version: a new report appears once the data version is checked again", async () => {
    const first = await t.app.inject("/sitemap.xml");
    const { reference } = await addReport("Sitemap newcomer");
    const cached = await t.app.inject("/sitemap.xml");
    expect(cached.headers.etag).toBe(first.headers.etag);
    expect(cached.body).not.toContain(reference);

    at += SITEMAP_LIMITS.freshMs;
    const fresh = await t.app.inject("/sitemap.xml");
    expect(fresh.headers.etag).not.toBe(first.headers.etag);
    expect(fresh.body).toContain(`<loc>https://wrenford.example.org/reports/${reference}</loc>`);
    const stale = await t.app.inject({ url: "/sitemap.xml", headers: { "if-none-match": first.headers.etag } });
    expect(stale.statusCode).toBe(200);

    at += SITEMAP_LIMITS.freshMs;
    expect((await t.app.inject("/sitemap.xml")).headers.etag).toBe(fresh.headers.etag);
  });

  it("becomes a sitemap index with child sitemaps past the URL limit", async () => {
    at += SITEMAP_LIMITS.freshMs;
    const whole = locs((await t.app.inject("/sitemap.xml")).body);
    expect(whole.length).toBeGreaterThan(20);

    const index = await t.app.inject("/small/sitemap.xml");
    expect(index.statusCode).toBe(200);
    expect(index.headers["content-type"]).toBe("application/xml; charset=utf-8");
    expect(index.body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<sitemapindex xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">\n<sitemap><loc>/,
    );
    const children = locs(index.body);
    expect(children).toHaveLength(Math.ceil(whole.length / 10));
    const listed: string[] = [];
    for (const [i, loc] of children.entries()) {
      expect(loc).toBe(`https://wrenford.example.org/small/sitemap-${i + 1}.xml`);
      const child = await t.app.inject(new URL(loc).pathname);
      expect(child.statusCode).toBe(200);
      expect(child.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset /);
      const urls = locs(child.body);
      expect(urls.length).toBeLessThanOrEqual(10);
      listed.push(...urls);
      const etag = child.headers.etag as string;
      const again = await t.app.inject({ url: new URL(loc).pathname, headers: { "if-none-match": etag } });
      expect(again.statusCode).toBe(304);
    }
    expect(listed).toEqual(whole);
    for (const missing of [
      "/small/sitemap-0.xml",
      `/small/sitemap-${children.length + 1}.xml`,
      "/small/sitemap-x.xml",
    ]) {
      expect((await t.app.inject(missing)).statusCode, missing).toBe(404);
    }
    expect((await t.app.inject("/sitemap-1.xml")).statusCode).toBe(404);
  });

  it("splits by size too, each file within the byte limit", async () => {
    at += SITEMAP_LIMITS.freshMs;
    const whole = locs((await t.app.inject("/sitemap.xml")).body);
    const children = locs((await t.app.inject("/tiny/sitemap.xml")).body);
    expect(children.length).toBeGreaterThan(1);
    const listed: string[] = [];
    for (const loc of children) {
      const child = await t.app.inject(new URL(loc).pathname);
      expect(child.rawPayload.length).toBeLessThanOrEqual(1500);
      listed.push(...locs(child.body));
    }
    expect(listed).toEqual(whole);
  });
});
