import type { Category } from "../../core/db/schema.js";
import { MAX_QUERY_CHARS } from "../../core/search.js";
import { MAX_SEARCH_MATCHES } from "../search.js";
import { REPORT_STATUSES, STATUS_LABELS } from "../model.js";
import type { PublicReport } from "../repository.js";
import { DateTime, ReportThumbnail, StatusTag } from "./common.js";

const MAX_SEARCH_LISTED = MAX_SEARCH_MATCHES.toLocaleString("en-GB");

export interface ListProps {
  /** The page's reports; near a place, each with its distance from it. */
  items: (PublicReport & { distanceM?: number })[];
  total: number;
  page: number;
  pages: number;
  categories: Category[];
  category: string;
  status: string;
  query: (page: number) => string;
  feedUrl: string;
  tiles: MapTiles;
  /** The place box: what was typed, the gazetteer's names to suggest. */
  near: string;
  placeNames: string[];
  /** The place the list is around, when one was asked for and found. */
  nearPlace: { name: string; radiusM: number } | null;
  /** The names closest to a place that was asked for and not found. */
  suggestions: string[] | null;
  /** The words searched for, when the list is a search (best match first); `capped` when more matched. */
  search?: { words: string; capped: boolean } | null;
}

/**
 * The reports' search box, "Street, place or words", with the gazetteer's names as suggestions (a datalist: a plain
 * text box without them). Named `q`, in a GET form to /reports, so it works without JavaScript: a street or
 * landmark's name lists the reports around it, other words or a reference are searched for.
 */
export function PlaceBox({ id, names, value = "" }: { id: string; names: string[]; value?: string }) {
  return (
    <div class="field">
      <label for={id}>Street, place or words</label>
      <input
        id={id}
        name="q"
        type="search"
        value={value}
        maxLength={MAX_QUERY_CHARS}
        autocomplete="off"
        list={names.length > 0 ? `${id}-places` : undefined}
      />
      {names.length > 0 ? (
        <datalist id={`${id}-places`}>
          {names.map((n) => (
            <option value={n} key={n} />
          ))}
        </datalist>
      ) : null}
    </div>
  );
}

/** Metres, as people say them: "40 m", "250 m". */
function distance(m: number): string {
  return `${Math.max(10, Math.round(m / 10) * 10)} m`;
}

/** The configured tile server, for the maps drawn by report-view-map.js. */
export interface MapTiles {
  tileUrl: string;
  attribution: string;
}

/** /reports: filters, a map of the reports on the page, and the list. */
export function ReportsList(p: ListProps) {
  const points = p.items
    .filter((r) => r.lat !== null && r.lng !== null)
    .map((r) => ({ lat: r.lat, lng: r.lng, title: r.title, url: `/reports/${r.reference}` }));
  const first = (p.page - 1) * 20 + 1;
  return (
    <>
      <h1>
        {p.nearPlace
          ? `Reports near ${p.nearPlace.name}`
          : p.search
            ? `Reports matching “${p.search.words}”`
            : "Reports"}
      </h1>
      <p class="lead">
        {p.nearPlace
          ? `Public reports within ${p.nearPlace.radiusM} metres of ${p.nearPlace.name}, nearest first.`
          : p.search?.capped
            ? `Public reports with these words in their title, description or place: more than ${MAX_SEARCH_LISTED} match, so the newest ${MAX_SEARCH_LISTED} are listed, newest first. Add words or a filter to narrow the search.`
            : p.search
              ? "Public reports with these words in their title, description or place, or with this reference, best match first."
              : "Every public report, newest first."}{" "}
        <a href="/report">Report an issue</a>.
      </p>
      {p.suggestions ? (
        <div class="notice" role="status">
          <p>
            {p.search ? `No report matches “${p.near}”.` : `We could not find a street or landmark called “${p.near}”.`}
            {p.suggestions.length > 0
              ? p.search
                ? " Did you mean one of these places?"
                : " Did you mean one of these?"
              : " Try a street name, like High Street."}
          </p>
          {p.suggestions.length > 0 ? (
            <ul>
              {p.suggestions.map((name) => (
                <li key={name}>
                  <a href={`/reports?near=${encodeURIComponent(name)}`}>{name}</a>
                </li>
              ))}
            </ul>
          ) : null}
          {p.search ? null : <p>Below are all public reports, newest first.</p>}
        </div>
      ) : null}
      <form method="get" action="/reports" class="filters">
        <PlaceBox id="filter-near" names={p.placeNames} value={p.near} />
        <div class="field">
          <label for="filter-category">Category</label>
          <select id="filter-category" name="category">
            <option value="">All categories</option>
            {p.categories.map((c) => (
              <option value={c.code} selected={p.category === c.code} key={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="">All statuses</option>
            {REPORT_STATUSES.map((s) => (
              <option value={s} selected={p.status === s} key={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show reports</button>
      </form>
      <p>
        {/* The feed follows new reports with the filters; it does not search. */}
        <a href={p.feedUrl}>{p.search ? "Atom feed of new reports" : "Atom feed of these reports"}</a> ·{" "}
        <a href="/alerts">Email me about new reports</a>
      </p>
      <p role="status">
        {p.total === 0
          ? "No reports match."
          : `Showing ${first} to ${first + p.items.length - 1} of ${p.total} report${p.total === 1 ? "" : "s"}.`}
      </p>
      {points.length > 0 ? (
        <div
          class="map report-view-map"
          hidden
          data-points={JSON.stringify(points)}
          data-label="Map of the reports listed on this page"
          data-tile-url={p.tiles.tileUrl}
          data-attribution={p.tiles.attribution}
        />
      ) : null}
      <ol class="report-list">
        {p.items.map((r) => (
          <li key={r.reference}>
            <ReportThumbnail thumbnail={r.thumbnail} title={r.title} />
            <h2>
              <a href={`/reports/${r.reference}`}>{r.title}</a>
            </h2>
            <p>
              <StatusTag status={r.status} /> {r.categoryName}
              {r.placeInWords ? ` · ${r.placeInWords}` : ""}
              {r.distanceM !== undefined ? ` · ${distance(r.distanceM)} away` : ""} · reported{" "}
              <DateTime iso={r.createdAt} />
            </p>
          </li>
        ))}
      </ol>
      {p.pages > 1 ? (
        <nav class="pagination" aria-label="Pages of reports">
          <ul>
            {p.page > 1 ? (
              <li>
                <a href={p.query(p.page - 1)} rel="prev">
                  {p.nearPlace ? "Nearer reports" : p.search && !p.search.capped ? "Better matches" : "Newer reports"}
                </a>
              </li>
            ) : null}
            <li>
              Page {p.page} of {p.pages}
            </li>
            {p.page < p.pages ? (
              <li>
                <a href={p.query(p.page + 1)} rel="next">
                  {p.nearPlace ? "Further reports" : p.search && !p.search.capped ? "More matches" : "Older reports"}
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
    </>
  );
}
