import type { PublicReport } from "../repository.js";
import { DateTime, ReportThumbnail, StatusTag } from "./common.js";

/** The newest public reports as a short list (the home page's): photo, title, status, category, place in words and date. */
export function LatestReports({ items, headingId }: { items: PublicReport[]; headingId: string }) {
  if (items.length === 0) return <p>No reports yet.</p>;
  return (
    <ol class="report-list" aria-labelledby={headingId}>
      {items.map((r) => (
        <li key={r.reference}>
          <ReportThumbnail thumbnail={r.thumbnail} title={r.title} />
          <h3>
            <a href={`/reports/${r.reference}`}>{r.title}</a>
          </h3>
          <p>
            <StatusTag status={r.status} /> {r.categoryName}
            {r.placeInWords ? ` · ${r.placeInWords}` : ""} · reported <DateTime iso={r.createdAt} />
          </p>
        </li>
      ))}
    </ol>
  );
}
