import type { Category } from "../../core/db/schema.js";
import { REPORT_STATUSES, STATUS_LABELS } from "../model.js";
import type { PublicReport } from "../repository.js";
import { DateTime, StatusTag, where } from "./common.js";

export interface ListProps {
  items: PublicReport[];
  total: number;
  page: number;
  pages: number;
  categories: Category[];
  category: string;
  status: string;
  query: (page: number) => string;
  feedUrl: string;
  tiles: MapTiles;
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
      <h1>Reports</h1>
      <p class="lead">
        Every public report, newest first. <a href="/report">Report an issue</a>.
      </p>
      <form method="get" action="/reports" class="filters">
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
        <a href={p.feedUrl}>Atom feed of these reports</a>
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
            <h2>
              <a href={`/reports/${r.reference}`}>{r.title}</a>
            </h2>
            <p>
              <StatusTag status={r.status} /> {r.categoryName}
              {where(r) ? ` · ${where(r)}` : ""} · reported <DateTime iso={r.createdAt} />
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
                  Newer reports
                </a>
              </li>
            ) : null}
            <li>
              Page {p.page} of {p.pages}
            </li>
            {p.page < p.pages ? (
              <li>
                <a href={p.query(p.page + 1)} rel="next">
                  Older reports
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
    </>
  );
}
