import type { SitemapSource } from "../core/web/sitemap.js";
import { publicIn } from "../core/visibility.js";

/** Every published idea's page (confirmed and public), newest first. */
export const ideaPages: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("ideas")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("updated_at").as("m")])
      .executeTakeFirst(),
  async entries(db, limit) {
    const rows = await db
      .selectFrom("ideas")
      .select(["id", "updated_at"])
      .where("status", "!=", "unconfirmed")
      .where(publicIn("ideas"))
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((i) => ({ path: `/ideas/${i.id}`, lastmod: i.updated_at }));
  },
};
