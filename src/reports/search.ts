import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { DB } from "../core/db/schema.js";
import { fts5Match, pgTsQuery, type SearchSource, searchTerms } from "../core/search.js";
import { publicReport } from "../core/visibility.js";
import { looksLikeReference, normaliseReference } from "./reference.js";
import {
  presentAll,
  PUBLIC_REPORT_COLUMNS,
  type PublicReport,
  type PublicReportColumns,
  type ReportFilter,
} from "./repository.js";

/**
 * How many matching reports one search lists: when more match (with the list's filters), the newest this many,
 * newest first, so a common word costs what a rare one does; the page says so. Fewer are ranked, best first.
 */
export const MAX_SEARCH_MATCHES = 1000;

export interface ReportSearchResult {
  items: PublicReport[];
  /** How many reports the search ranked (at most MAX_SEARCH_MATCHES, plus a report found by its reference). */
  total: number;
  /** Whether more reports match than are listed (they are then the newest, newest first, not ranked). */
  capped: boolean;
}

/** SQLite's bm25 weights of the title, description and place columns (migration 0028_search). */
const FTS5_WEIGHTS = sql.raw("10.0, 1.0, 3.0");
/** PostgreSQL's ts_rank weights of D, C (place), B (description) and A (title), in that order. */
const PG_WEIGHTS = sql.lit("{0.1, 0.3, 0.1, 1.0}");

/**
 * The ids of the public reports matching every word, at most MAX_SEARCH_MATCHES + 1 of them: the newest first when
 * there are more than MAX_SEARCH_MATCHES (reading the index from its newest entry, so a word in every report costs
 * what a rare one does), otherwise ranked, best first (bm25 on SQLite, whose cost grows with the matches; ts_rank on
 * PostgreSQL), ties newest first.
 */
async function matchingIds(db: Kysely<DB>, terms: string[], filter: ReportFilter, except: number | null) {
  const filters = [
    publicReport,
    ...(filter.category ? [sql`reports.category_code = ${filter.category}`] : []),
    ...(filter.status ? [sql`reports.status = ${filter.status}`] : []),
    ...(except !== null ? [sql`reports.id <> ${except}`] : []),
  ];
  const where = sql.join(filters, sql` and `);
  const limit = MAX_SEARCH_MATCHES + 1;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const q = postgres ? pgTsQuery(terms) : fts5Match(terms);
  const newest = postgres
    ? sql<{ id: number }>`select s.report_id as id from report_search s join reports on reports.id = s.report_id
        where s.document @@ ${q} and ${where} order by s.report_id desc limit ${limit}`
    : sql<{ id: number }>`select reports.id from report_search join reports on reports.id = report_search.rowid
        where report_search match ${q} and ${where} order by report_search.rowid desc limit ${limit}`;
  const ids = (await newest.execute(db)).rows.map((r) => Number(r.id));
  if (ids.length > MAX_SEARCH_MATCHES || ids.length < 2) return ids;
  const ranked = postgres
    ? sql<{ id: number }>`select s.report_id as id from report_search s
        where s.report_id in (${sql.join(ids)}) and s.document @@ ${q}
        order by ts_rank(${PG_WEIGHTS}::float4[], s.document, ${q}) desc, s.report_id desc`
    : sql<{ id: number }>`select rowid as id from report_search
        where report_search match ${q} and rowid in (${sql.join(ids)})
        order by bm25(report_search, ${FTS5_WEIGHTS}), rowid desc`;
  return (await ranked.execute(db)).rows.map((r) => Number(r.id));
}

/**
 * Public reports by words in their title, description and place (core/search.ts: plurals and accents folded, every
 * word required), best match first, with the list's filters, one page at a time. A reference typed as the whole
 * query ("k7qm 3x9p" too) puts that report first. Null when nothing searchable was typed.
 */
export async function searchPublicReports(
  db: Kysely<DB>,
  typed: string,
  filter: ReportFilter,
  page: { offset: number; limit: number },
): Promise<ReportSearchResult | null> {
  const terms = searchTerms(typed);
  const reference = normaliseReference(typed.slice(0, 40));
  let byReference: { id: number } | undefined;
  if (looksLikeReference(reference)) {
    let q = db
      .selectFrom("reports")
      .select("reports.id")
      .where("reports.reference", "=", reference)
      .where(publicReport);
    if (filter.category) q = q.where("reports.category_code", "=", filter.category);
    if (filter.status) q = q.where("reports.status", "=", filter.status);
    byReference = await q.executeTakeFirst();
  }
  if (terms.length === 0 && !byReference) return null;
  const found = terms.length === 0 ? [] : await matchingIds(db, terms, filter, byReference?.id ?? null);
  const capped = found.length > MAX_SEARCH_MATCHES;
  const ids = [...(byReference ? [byReference.id] : []), ...found.slice(0, MAX_SEARCH_MATCHES)];
  const shown = ids.slice(page.offset, page.offset + page.limit);
  const rows: PublicReportColumns[] =
    shown.length === 0
      ? []
      : await db
          .selectFrom("reports")
          .select(PUBLIC_REPORT_COLUMNS)
          .where("reports.id", "in", shown)
          .where(publicReport)
          .execute();
  const order = new Map(shown.map((id, i) => [id, i]));
  rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return { items: await presentAll(db, rows), total: ids.length, capped };
}

/** The reports' part of the site-wide search (the manifest's `search`). */
export const reportSearch: SearchSource = {
  label: "Reports",
  path: "/reports",
  async search(db, query, limit) {
    const found = await searchPublicReports(db, query.text, {}, { offset: 0, limit });
    return (found?.items ?? []).map((r) => ({
      title: r.title,
      url: `/reports/${r.reference}`,
      summary: `${r.categoryName} · ${r.statusLabel} · ${r.reference}`,
    }));
  },
};
