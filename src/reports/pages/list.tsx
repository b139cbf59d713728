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
  /** Whether fixed and closed reports are left out (the filters form's checkbox). */
  hideClosed?: boolean | undefined;
  /** The map's data (/api/reports/map.json with the list's filters); the map adds the visible area. */
  mapUrl: string;
  /** Where the map starts: the village, as south, west, north, east. */
  mapBounds: [number, number, number, number];
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
  /** The zooms tiles exist at, "MIN-MAX" (config.ts tileZooms), when limited. */
  zooms?: string | undefined;
}

/**
 * The map of every report matching the filters (reports-map.js fills it from `mapUrl`), with the list of the
 * reports in view beside it and "Report a problem here". Its space is kept in the page (a box of fixed proportions),
 * so nothing moves when it is drawn; without JavaScript it is not shown (CSS `scripting: none`) and the paged list
 * below has every report.
 */
export function ReportsMap({
  mapUrl,
  bounds,
  tiles,
  linkBase,
  label = "Map of the reports that match the filters",
}: {
  mapUrl: string;
  bounds: number[];
  tiles: MapTiles;
  /** Where a report's link goes, before its reference (default "/reports/"; the staff inbox: "/admin/reports/"). */
  linkBase?: string;
  label?: string;
}) {
  return (
    <section class="reports-map" aria-labelledby="reports-map-heading">
      <h2 id="reports-map-heading" class="visually-hidden">
        Map of the reports
      </h2>
      <div class="map-box">
        <div
          class="map report-view-map reports-map-canvas"
          data-map-url={mapUrl}
          data-bounds={bounds.join(",")}
          data-label={label}
          data-link-base={linkBase}
          data-tile-url={tiles.tileUrl}
          data-tile-zooms={tiles.zooms}
          data-attribution={tiles.attribution}
        />
      </div>
      <div class="map-side">
        <p class="map-summary" role="status" aria-live="polite" />
        <ul class="map-in-view" aria-label="Reports in view on the map" />
        <p class="map-legend">
          <span class="legend-item">
            <span class="report-pin report-pin-open" aria-hidden="true">
              <span>!</span>
            </span>{" "}
            Open
          </span>
          <span class="legend-item">
            <span class="report-pin report-pin-progress" aria-hidden="true">
              <span>…</span>
            </span>{" "}
            In progress
          </span>
          <span class="legend-item">
            <span class="report-pin report-pin-fixed" aria-hidden="true">
              <span>✓</span>
            </span>{" "}
            Fixed
          </span>
          <span class="legend-item">
            <span class="report-pin report-pin-closed" aria-hidden="true">
              <span>×</span>
            </span>{" "}
            Closed
          </span>
        </p>
        <p>
          <a class="report-here" href="/report">
            Report a problem here
          </a>{" "}
          <span class="hint">(at the centre of the map)</span>
        </p>
      </div>
    </section>
  );
}

/** /reports: the map of every matching report, filters, and the list, a page at a time. */
export function ReportsList(p: ListProps) {
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
      <ReportsMap mapUrl={p.mapUrl} bounds={p.mapBounds} tiles={p.tiles} />
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
        <div class="field choice">
          <input id="filter-hide-closed" type="checkbox" name="hide_closed" value="true" checked={!!p.hideClosed} />
          <label for="filter-hide-closed">Hide fixed and closed reports</label>
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
