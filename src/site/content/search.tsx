import type { SearchHit } from "../../core/search.js";
import { MAX_QUERY_CHARS } from "../../core/search.js";

export interface SearchResults {
  label: string;
  /** The feature's own search with the same words, which lists every match. */
  moreUrl: string;
  hits: SearchHit[];
}

/** /search: one box, and the best matches of each searchable part of the site (the features' `search` sources). */
export function SearchContent({ text, results }: { text: string; results: SearchResults[] | null }) {
  return (
    <>
      <h1>{text ? `Search results for “${text}”` : "Search"}</h1>
      <form method="get" action="/search" class="site-search">
        <div class="field">
          <label for="site-search-q">Words or a report's reference</label>
          <input id="site-search-q" name="q" type="search" value={text} maxLength={MAX_QUERY_CHARS} />
        </div>
        <button type="submit">Search</button>
      </form>
      {results === null ? null : results.every((r) => r.hits.length === 0) ? (
        <p role="status">Nothing matches. Try fewer or different words.</p>
      ) : (
        results
          .filter((r) => r.hits.length > 0)
          .map((r, i) => (
            <section aria-labelledby={`search-results-${i}`} key={r.label}>
              <h2 id={`search-results-${i}`}>{r.label}</h2>
              <ul>
                {r.hits.map((h) => (
                  <li key={h.url}>
                    <a href={h.url}>{h.title}</a> <span class="muted">{h.summary}</span>
                  </li>
                ))}
              </ul>
              <p>
                <a href={r.moreUrl}>All matching {r.label.toLowerCase()}</a>
              </p>
            </section>
          ))
      )}
    </>
  );
}
