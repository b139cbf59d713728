import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DB } from "./db/schema.js";

/**
 * Full-text search, the one mechanism every feature's search uses (issue 35): SQLite FTS5 with the `porter unicode61
 * remove_diacritics 2` tokenizer and PostgreSQL's `english` text search configuration over text folded by
 * `civic_search_fold` (migration 0028), so plurals ("pubs" → pub) and accents ("café" = "cafe") fold the same way on
 * both databases. What people type is never FTS syntax: it is cut to `MAX_QUERY_CHARS`, folded, split into words of
 * letters and digits (so quotes, `*`, `^`, `:`, parentheses, NEAR, AND, column filters, NUL and control characters
 * are only separators or words), stripped of the stop words PostgreSQL's `english` configuration ignores, and capped
 * at `MAX_TERMS` words of at most `MAX_TERM_CHARS` letters. Every word must match (AND).
 */

/** How much of what was typed is read. */
export const MAX_QUERY_CHARS = 200;
/** How many words a search uses (the rest are ignored). */
export const MAX_TERMS = 12;
/** The longest word kept (longer ones are cut). */
export const MAX_TERM_CHARS = 40;
/** The text search configuration on PostgreSQL (its stemmer matches FTS5's porter on ordinary plurals). */
export const PG_SEARCH_CONFIG = "english";
/** The FTS5 tokenizer on SQLite. */
export const FTS5_TOKENIZER = "porter unicode61 remove_diacritics 2";

/** PostgreSQL's english stop words: neither database searches for them, so both find the same. */
const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for " +
    "with about against between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more most other some such no " +
    "nor not only own same so than too very s t can will just don should now"
  ).split(" "),
);

/** Letters the Unicode decomposition leaves whole, spelled out as people type them without accents. */
function spellOut(text: string): string {
  return text
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[œŒ]/g, "oe")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .replace(/[đĐ]/g, "d");
}

/** Text folded for searching: accents removed, lower case ("Café" → "cafe"). */
export function foldForSearch(text: string): string {
  return spellOut(text.normalize("NFKD").replace(/\p{M}+/gu, "")).toLowerCase();
}

/** The words a search looks for, or none when nothing searchable was typed. */
export function searchTerms(typed: string): string[] {
  let text = typed.slice(0, MAX_QUERY_CHARS);
  // A word cut in two at the limit is left out rather than searched for as its first half.
  if (/^[\p{L}\p{N}]/u.test(typed.slice(MAX_QUERY_CHARS))) text = text.replace(/[\p{L}\p{N}]+$/u, "");
  const words = foldForSearch(text).split(/[^\p{L}\p{N}]+/u);
  const terms: string[] = [];
  for (const word of words) {
    if (word === "" || STOP_WORDS.has(word)) continue;
    const term = word.slice(0, MAX_TERM_CHARS);
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** An FTS5 MATCH expression: each word a quoted string (never an operator), all of them required. */
export function fts5Match(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, "")}"`).join(" ");
}

/** A PostgreSQL tsquery of the words, all of them required (plain text: plainto_tsquery knows no operators). */
export function pgTsQuery(terms: readonly string[]): RawBuilder<unknown> {
  return sql`plainto_tsquery(${sql.lit(PG_SEARCH_CONFIG)}::regconfig, ${terms.join(" ")})`;
}

/** What a feature's search finds for the site-wide search (`/search`): a title, a link and a line about it. */
export interface SearchHit {
  title: string;
  url: string;
  summary: string;
}

/**
 * A feature's searchable items, contributed through its manifest (`Feature.search`), so the floor asks every
 * feature of the app without knowing any: the site's search page lists each source's best matches under its label.
 */
export interface SearchSource {
  /** A heading for its results ("Reports", "Local businesses"). */
  label: string;
  /** Where the feature's own search shows every match, for "see all" (`?q=` is added). */
  path: string;
  /** The best matches, at most `limit`, for the words already parsed by `searchTerms`. */
  search(db: Kysely<DB>, query: { text: string; terms: string[] }, limit: number): Promise<SearchHit[]>;
}
