import type { Kysely } from "kysely";
import type { Dialect } from "../core/db/database.js";
import type { DB } from "../core/db/schema.js";
import {
  type Bucket,
  monthStart,
  type ReportFigures,
  reportFigures,
  reportsPer,
  type ResponseTimes,
  responseTimes,
  type TimesRow,
} from "./figures.js";

/** How many calendar months the public figures cover, this one included. */
export const PUBLIC_MONTHS = 12;

/** The public report statistics: what /stats shows and /stats.json gives, from public reports only. */
export interface PublicStats {
  figures: ReportFigures;
  perMonth: Bucket[];
  /** How long things take, per category and per department, over the same period. */
  times: ResponseTimes;
}

export async function publicStats(db: Kysely<DB>, dialect: Dialect, now: Date): Promise<PublicStats> {
  const since = monthStart(now, PUBLIC_MONTHS - 1);
  const [figures, perMonth, times] = await Promise.all([
    reportFigures(db, since, now),
    reportsPer(db, dialect, "month", PUBLIC_MONTHS, now),
    responseTimes(db, since),
  ]);
  return { figures, perMonth, times };
}

/** One category's or department's times in /stats.json (docs/privacy-and-security.md "Visitor statistics"). */
function timesJson(row: TimesRow) {
  return {
    name: row.label,
    reports: row.reports,
    firstResponses: row.firstResponses,
    medianDaysToFirstResponse: row.medianDaysToFirstResponse,
    fixes: row.fixes,
    medianDaysToFix: row.medianDaysToFix,
    fixedByReporter: row.fixedByReporter,
    shareFixedByReporter: row.shareFixedByReporter,
  };
}

/** The /stats.json document (described on /developers and in docs/privacy-and-security.md "Visitor statistics"). */
export function publicStatsJson(stats: PublicStats, generated: Date) {
  const f = stats.figures;
  return {
    generated: generated.toISOString(),
    period: { from: f.from, to: f.to },
    reports: f.reports,
    fixed: f.fixed,
    shareFixed: f.shareFixed,
    medianDaysToFix: f.medianDaysToFix,
    reportsPerMonth: stats.perMonth.map((b) => ({ month: b.key, reports: b.count })),
    byCategory: f.byCategory.map((c) => ({ category: c.key, name: c.label, reports: c.count })),
    byStatus: f.byStatus.map((s) => ({ status: s.key, name: s.label, reports: s.count })),
    times: {
      reportsCounted: stats.times.sampled,
      all: timesJson(stats.times.all),
      byCategory: stats.times.byCategory.map((r) => ({ category: r.key, ...timesJson(r) })),
      byDepartment: stats.times.byDepartment.map((r) => ({ department: r.key, ...timesJson(r) })),
    },
  };
}
