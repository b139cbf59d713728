import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sitemapRoutes } from "../../src/site/sitemap-xml.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/**
 * Past its URL limit the sitemap is a sitemap index whose parts, together, list every public report. In production
 * the limit is 10,000 URLs a file (SITEMAP_LIMITS) and the sitemap lists up to 200,000 reports; here the same routes
 * are registered under /small with a limit of 100 URLs, so a few hundred reports make several parts. The reports
 * are generated in SQL, so the test stays quick on both databases.
 */
describeEachDb("/sitemap.xml split into parts: 400 public reports, 100 URLs a file", (dialect) => {
  let t: TestApp;
  const N = 400;
  const MAX_URLS = 100;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      routes: (app) => void app.register(sitemapRoutes, { prefix: "/small", limits: { maxUrlsPerFile: MAX_URLS } }),
    });
    const db = t.app.civic.database.db;
    const columns =
      "reference, category_code, title, description, attributes, status, visibility, share_contact, source, created_at, updated_at";
    if (dialect === "sqlite") {
      await sql
        .raw(
          `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${N})
           INSERT INTO reports (${columns})
           SELECT printf('SMAP-%07d', i), 'pothole', 'Sitemap ' || i, 'Generated.', '{}', 'open', 'public', 0, 'web',
                  strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch')
           FROM s`,
        )
        .execute(db);
    } else {
      await sql
        .raw(
          `INSERT INTO reports (${columns})
           SELECT 'SMAP-' || lpad(i::text, 7, '0'), 'pothole', 'Sitemap ' || i, 'Generated.', '{}', 'open', 'public', 0, 'web',
                  to_timestamp(1700000000 + i), to_timestamp(1700000000 + i)
           FROM generate_series(1, ${N}) AS i`,
        )
        .execute(db);
    }
  });
  afterAll(async () => t?.close());

  it("is a sitemap index whose parts list every report", async () => {
    const index = await t.app.inject("/small/sitemap.xml");
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain("<sitemapindex");
    const parts = [...index.body.matchAll(/<loc>[^<]+\/(small\/sitemap-\d+\.xml)<\/loc>/g)].map((m) => m[1]);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    let listed = 0;
    for (const part of parts) {
      const res = await t.app.inject(`/${part}`);
      expect(res.statusCode).toBe(200);
      listed += (res.body.match(/\/reports\/SMAP-/g) ?? []).length;
    }
    expect(listed).toBe(N);
  });
});
