import type { SitemapSource } from "../core/web/sitemap.js";
import { moderationGeneration } from "./generation.js";

/**
 * Moderation lists no page of its own, but every decision (hide, unhide, remove, redact) changes which pages are
 * public, even when counts stay equal: its version moves the site map, and a decision in this process shows at once.
 */
export const moderationDecisions: SitemapSource = {
  version: (db) =>
    db
      .selectFrom("moderation_decisions")
      .select((eb) => eb.fn.max("id").as("m"))
      .executeTakeFirst(),
  generation: moderationGeneration,
};
