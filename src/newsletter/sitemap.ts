import type { SitemapSource } from "../core/web/sitemap.js";

/** Every sent issue in the newsletter archive, newest first. */
export const archivePages: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("newsletter_issues")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .where("status", "=", "sent")
      .executeTakeFirst(),
  async entries(db, limit) {
    const rows = await db
      .selectFrom("newsletter_issues")
      .select(["id", "updated_at"])
      .where("status", "=", "sent")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((i) => ({ path: `/newsletter/archive/${i.id}`, lastmod: i.updated_at }));
  },
};
