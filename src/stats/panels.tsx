import { Chart, formatNumber } from "./charts.js";
import type { ReportFigures, TimesRow } from "./figures.js";

/** "42%" of a 0..1 share, or a dash. */
export const percent = (share: number | null) => (share === null ? "–" : `${Math.round(share * 100)}%`);

/** "3.5 days", or a dash when nothing was fixed. */
export const days = (d: number | null) =>
  d === null ? "–" : `${d.toLocaleString("en-GB")} ${d === 1 ? "day" : "days"}`;

/** The headline figures as a definition list. */
export function Headline({ figures, medianLabel }: { figures: ReportFigures; medianLabel: string }) {
  return (
    <dl class="stat-tiles">
      <div>
        <dt>Reports</dt>
        <dd>{formatNumber(figures.reports)}</dd>
      </div>
      <div>
        <dt>Fixed</dt>
        <dd>
          {formatNumber(figures.fixed)} ({percent(figures.shareFixed)})
        </dd>
      </div>
      <div>
        <dt>{medianLabel}</dt>
        <dd>{days(figures.medianDaysToFix)}</dd>
      </div>
    </dl>
  );
}

/** Reports by category and by status, as two charts with tables. */
export function CategoryAndStatusCharts({ figures, idPrefix }: { figures: ReportFigures; idPrefix: string }) {
  return (
    <>
      <Chart
        id={`${idPrefix}-category`}
        kind="bars"
        title="Reports by category"
        labelHeading="Category"
        valueHeading="Reports"
        data={figures.byCategory.map((c) => ({ label: c.label, value: c.count }))}
      />
      <Chart
        id={`${idPrefix}-status`}
        kind="bars"
        title="Reports by status"
        labelHeading="Status"
        valueHeading="Reports"
        data={figures.byStatus.map((s) => ({ label: s.label, value: s.count }))}
      />
    </>
  );
}

/** "3 (25%)": a count with its share, or just the count when there is no share. */
const countAndShare = (count: number, share: number | null) =>
  share === null ? formatNumber(count) : `${formatNumber(count)} (${percent(share)})`;

/**
 * How long the reports of each category or department took, as a data table: on a narrow screen each row becomes a
 * block, each figure under its column's name (table.stacked).
 */
export function TimesTable({
  id,
  caption,
  heading,
  rows,
}: {
  id: string;
  caption: string;
  heading: string;
  rows: TimesRow[];
}) {
  if (rows.length === 0) {
    return (
      <section aria-labelledby={`${id}-title`}>
        <h3 id={`${id}-title`}>{caption}</h3>
        <p>Nothing to show yet.</p>
      </section>
    );
  }
  const columns = [
    "Reports",
    "Median time to a first public response",
    "Median time to fixed",
    "Marked fixed by their reporter",
  ] as const;
  return (
    <table class="stacked times-table" id={id}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          {columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.key ?? ""}:${r.label}`}>
            <th scope="row">{r.label}</th>
            <td data-label={columns[0]}>{formatNumber(r.reports)}</td>
            <td data-label={columns[1]}>{days(r.medianDaysToFirstResponse)}</td>
            <td data-label={columns[2]}>{days(r.medianDaysToFix)}</td>
            <td data-label={columns[3]}>{countAndShare(r.fixedByReporter, r.shareFixedByReporter)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
