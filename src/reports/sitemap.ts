import type { SitemapSource } from "../core/web/sitemap.js";
import { publicReport } from "../core/visibility.js";
import { publicReadVersion } from "./data-version.js";

/** The newest public reports' pages. The version is the public read version (triggers move it on every write). */
export const reportPages: SitemapSource = {
  version: publicReadVersion,
  async entries(db, limit) {
    const rows = await db
      .selectFrom("reports")
      .select(["reference", "updated_at"])
      .where(publicReport)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ path: `/reports/${encodeURIComponent(r.reference)}`, lastmod: r.updated_at }));
  },
};
