import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { machineResources, sitePages } from "../core/web/sitemap.js";
import { FEATURES } from "../features.js";

describeEachDb("discovery files", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { BASE_URL: "https://wrenford.example.org" } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("/llms.txt follows the llmstxt.org format with absolute links from the site map", async () => {
    const res = await t.app.inject("/llms.txt");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    const lines = res.body.split("\n");
    expect(lines[0]).toBe(`# ${t.config.village.name} Community Platform`);
    expect(lines[1]).toBe("");
    expect(lines[2]).toMatch(/^> .*report local, non-urgent issues/);
    expect(res.body).toMatch(/not a council service/);
    expect(res.body).toMatch(/not for emergencies/);
    const h2 = lines.filter((l) => l.startsWith("## "));
    expect(h2).toEqual(["## Pages", "## APIs", "## Data", "## Optional"]);
    const items = lines.filter((l) => l.startsWith("- "));
    for (const item of items) expect(item).toMatch(/^- \[[^\]]+\]\(https:\/\/wrenford\.example\.org\/[^)]*\): \S/);
    for (const page of sitePages(FEATURES).filter((p) => p.path !== "/")) {
      expect(res.body).toContain(`](https://wrenford.example.org${page.path})`);
    }
    for (const r of machineResources(FEATURES)) expect(res.body).toContain(`](https://wrenford.example.org${r.path})`);
    expect(res.body).toContain("(https://wrenford.example.org/openapi.yaml)");
    expect(res.body).toContain("(https://wrenford.example.org/data/businesses-canonical.json)");
  });

  it("/robots.txt allows crawling and points at the sitemap", async () => {
    const res = await t.app.inject("/robots.txt");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.body).toMatch(/^User-agent: \*$/m);
    expect(res.body).toContain("Sitemap: https://wrenford.example.org/sitemap.xml");
  });

  it("/sitemap.xml lists the public pages and project pages with absolute URLs", async () => {
    const res = await t.app.inject("/sitemap.xml");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/xml; charset=utf-8");
    expect(res.body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    expect(res.body).toContain("<loc>https://wrenford.example.org/about</loc>");
    expect(res.body).toContain("<loc>https://wrenford.example.org/developers</loc>");
    expect(res.body).toMatch(
      /<loc>https:\/\/wrenford\.example\.org\/projects\/[a-z0-9-]+<\/loc><lastmod>\d{4}-\d\d-\d\dT/,
    );
    const locs = [...res.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(new Set(locs).size).toBe(locs.length);
    for (const loc of locs) {
      const path = new URL(loc ?? "").pathname;
      expect((await t.app.inject(path)).statusCode, path).toBe(200);
    }
  });

  it("/developers explains the APIs with examples, keys, limits and licence", async () => {
    const res = await t.app.inject("/developers");
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain("https://wrenford.example.org/api/v1/businesses");
    expect(html).toContain("/api/v1/diff?since=");
    expect(html).toMatch(
      /curl -s -X POST &#39;https:\/\/wrenford\.example\.org\/api\/v2\/requests\.json&#39;|curl -s -X POST 'https:\/\/wrenford\.example\.org\/api\/v2\/requests\.json'/,
    );
    expect(html).toContain('href="/openapi.yaml"');
    expect(html).toContain('href="/data/businesses-canonical.json"');
    expect(html).toMatch(/API key/);
    expect(html).toMatch(/RateLimit-Remaining/);
    expect(html).toMatch(/Open Database License/);
  });
});
