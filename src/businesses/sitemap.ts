import type { SitemapSource } from "../core/web/sitemap.js";

/** Every listed business's page (the change log's count and high-water mark move with every write). */
export const businessPages: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("business_changes")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("seq").as("m")])
      .executeTakeFirst(),
  async entries(db, limit) {
    const rows = await db
      .selectFrom("businesses")
      .select(["id", "updated_at"])
      .where("deleted_at", "is", null)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((b) => ({ path: `/businesses/${encodeURIComponent(b.id)}`, lastmod: b.updated_at }));
  },
};
