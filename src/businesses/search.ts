import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { DB } from "../core/db/schema.js";
import { fts5Match, PG_SEARCH_CONFIG, pgTsQuery, type SearchSource, searchTerms } from "../core/search.js";
import { typeLabel } from "./vocabulary.js";

/** The most businesses one search returns (a village directory has a few hundred). */
const MAX_MATCHES = 5000;

/**
 * The ids of the live businesses whose name, category, type, description or address has every word (core/search.ts:
 * plurals and accents folded), best match first; null when nothing searchable was typed.
 */
export async function searchBusinessIds(db: Kysely<DB>, typed: string): Promise<string[] | null> {
  const terms = searchTerms(typed);
  if (terms.length === 0) return null;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const document = sql`to_tsvector(${sql.lit(PG_SEARCH_CONFIG)}::regconfig, civic_search_fold(search_text))`;
    const rows = await sql<{ id: string }>`select id from businesses
      where ${document} @@ ${pgTsQuery(terms)} and deleted_at is null
      order by ts_rank(${document}, ${pgTsQuery(terms)}) desc, id limit ${MAX_MATCHES}`.execute(db);
    return rows.rows.map((r) => r.id);
  }
  const rows = await sql<{ id: string }>`select b.id from business_search s join businesses b on b.rowid = s.rowid
    where business_search match ${fts5Match(terms)} and b.deleted_at is null
    order by bm25(business_search), b.id limit ${MAX_MATCHES}`.execute(db);
  return rows.rows.map((r) => r.id);
}

/** The directory's part of the site-wide search (the manifest's `search`). */
export const businessSearch: SearchSource = {
  label: "Local businesses",
  path: "/businesses",
  async search(db, query, limit) {
    const ids = (await searchBusinessIds(db, query.text)) ?? [];
    const shown = ids.slice(0, limit);
    if (shown.length === 0) return [];
    const rows = await db
      .selectFrom("businesses")
      .select(["id", "name", "schema_type", "category"])
      .where("id", "in", shown)
      .where("deleted_at", "is", null)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return shown.flatMap((id) => {
      const b = byId.get(id);
      return b
        ? [
            {
              title: b.name,
              url: `/businesses/${encodeURIComponent(b.id)}`,
              summary: `${b.category} · ${typeLabel(b.schema_type)}`,
            },
          ]
        : [];
    });
  },
};
