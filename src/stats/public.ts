import type { Kysely } from "kysely";
import type { Dialect } from "../core/db/database.js";
import type { DB } from "../core/db/schema.js";
import { type Bucket, monthStart, type ReportFigures, reportFigures, reportsPer } from "./figures.js";

/** How many calendar months the public figures cover, this one included. */
export const PUBLIC_MONTHS = 12;

/** The public report statistics: what /stats shows and /stats.json gives, from public reports only. */
export interface PublicStats {
  figures: ReportFigures;
  perMonth: Bucket[];
}

export async function publicStats(db: Kysely<DB>, dialect: Dialect, now: Date): Promise<PublicStats> {
  const [figures, perMonth] = await Promise.all([
    reportFigures(db, monthStart(now, PUBLIC_MONTHS - 1), now),
    reportsPer(db, dialect, "month", PUBLIC_MONTHS, now),
  ]);
  return { figures, perMonth };
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
  };
}
