import { Chart, formatNumber } from "./charts.js";
import type { ReportFigures } from "./figures.js";

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
