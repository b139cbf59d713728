import type { SitemapSource } from "../core/web/sitemap.js";

/** Every councillor's page, in the order of the list. */
export const councillorPages: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("councillors")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("id").as("m")])
      .executeTakeFirst(),
  async entries(db, limit) {
    const rows = await db.selectFrom("councillors").select("id").orderBy("sort_order").limit(limit).execute();
    return rows.map((c) => ({ path: `/councillors/${encodeURIComponent(c.id)}` }));
  },
};
