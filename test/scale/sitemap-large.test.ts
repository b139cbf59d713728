import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/**
 * At scale the sitemap lists its cap of 200,000 reports, split into parts of 50,000 URLs. Building it once pushed
 * every entry as one argument of Array.push, which overflows the call stack past ~120,000: a 500 instead of the
 * sitemap. The reports are generated in SQL, so the test stays quick on both databases.
 */
describeEachDb("/sitemap.xml with 150,000 public reports", (dialect) => {
  let t: TestApp;
  const N = 150_000;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
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
  }, 300_000);
  afterAll(async () => t?.close());

  it("is a sitemap index whose parts list every report", async () => {
    const index = await t.app.inject("/sitemap.xml");
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain("<sitemapindex");
    const parts = [...index.body.matchAll(/<loc>[^<]+\/(sitemap-\d+\.xml)<\/loc>/g)].map((m) => m[1]);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    let listed = 0;
    for (const part of parts) {
      const res = await t.app.inject(`/${part}`);
      expect(res.statusCode).toBe(200);
      listed += (res.body.match(/\/reports\/SMAP-/g) ?? []).length;
    }
    expect(listed).toBe(N);
  }, 120_000);
});
