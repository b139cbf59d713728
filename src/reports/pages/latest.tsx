import type { PublicReport } from "../repository.js";
import { DateTime, StatusTag, where } from "./common.js";

/** The newest public reports as a short list (the home page's): title, status, category, place and date. */
export function LatestReports({ items, headingId }: { items: PublicReport[]; headingId: string }) {
  if (items.length === 0) return <p>No reports yet.</p>;
  return (
    <ol class="report-list" aria-labelledby={headingId}>
      {items.map((r) => (
        <li key={r.reference}>
          <h3>
            <a href={`/reports/${r.reference}`}>{r.title}</a>
          </h3>
          <p>
            <StatusTag status={r.status} /> {r.categoryName}
            {where(r) ? ` · ${where(r)}` : ""} · reported <DateTime iso={r.createdAt} />
          </p>
        </li>
      ))}
    </ol>
  );
}
