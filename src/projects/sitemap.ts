import type { SitemapSource } from "../core/web/sitemap.js";

/** Every project's page (projects are all public). */
export const projectPages: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("projects")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .executeTakeFirst(),
  async entries(db, limit) {
    const rows = await db.selectFrom("projects").select(["id", "updated_at"]).orderBy("id").limit(limit).execute();
    return rows.map((p) => ({ path: `/projects/${encodeURIComponent(p.id)}`, lastmod: p.updated_at }));
  },
};
