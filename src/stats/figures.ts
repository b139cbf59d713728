import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import type { Dialect } from "../core/db/database.js";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { publicReport, publicUpdate } from "../core/visibility.js";
import { REPORT_STATUSES, STATUS_LABELS } from "../reports/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * A median is taken over at most this many of the most recent fixes in the period (village-wide), or of the most
 * recent reports in the period (per category and department: responseTimes).
 */
export const MEDIAN_SAMPLE = 50_000;

export interface Counted {
  key: string;
  label: string;
  count: number;
}

/** The report figures of a period, as /stats, /stats.json and /admin/stats show them. */
export interface ReportFigures {
  /** First day of the period (inclusive) and the day the figures were made, YYYY-MM-DD. */
  from: string;
  to: string;
  reports: number;
  fixed: number;
  /** fixed / reports, 0..1 with 3 decimals; null without reports. */
  shareFixed: number | null;
  /** Median days from a report to its first "fixed", one decimal; null when none was fixed. */
  medianDaysToFix: number | null;
  byCategory: Counted[];
  byStatus: Counted[];
}

export interface FigureOptions {
  /** Count hidden and removed reports too (staff figures). */
  includeHidden?: boolean;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The first instant of the month `monthsBack` months before the month of `now` (UTC). */
export function monthStart(now: Date, monthsBack: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1));
}

/** Monday 00:00 UTC of the week `weeksBack` weeks before the week of `now`. */
export function weekStart(now: Date, weeksBack: number): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const sinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return new Date(midnight - (sinceMonday + 7 * weeksBack) * DAY_MS);
}

type ReportFilter = (since: string, options: FigureOptions) => Expression<SqlBool>;

/** Reports made since `since`, public ones only unless staff figures are asked for. */
const inPeriod: ReportFilter = (since, options) =>
  options.includeHidden
    ? sql<SqlBool>`${sql.ref("reports.created_at")} >= ${since}`
    : sql<SqlBool>`${sql.ref("reports.created_at")} >= ${since} and ${publicReport}`;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Median days from a report made since `since` to the first time it reached one of `statuses` (from its status
 * history), one decimal; null when none did.
 */
export async function medianDaysTo(
  db: Kysely<DB>,
  statuses: readonly ReportStatus[],
  since: string,
  options: FigureOptions = {},
): Promise<number | null> {
  const rows = await db
    .selectFrom("reports")
    .innerJoin("report_updates", "report_updates.report_id", "reports.id")
    .select(["reports.created_at as created", (eb) => eb.fn.min("report_updates.created_at").as("reached")])
    .where(inPeriod(since, options))
    .where("report_updates.status", "in", statuses as ReportStatus[])
    .groupBy(["reports.id", "reports.created_at"])
    .orderBy("reports.created_at", "desc")
    .limit(MEDIAN_SAMPLE)
    .execute();
  const days = rows.map((r) => (Date.parse(String(r.reached)) - Date.parse(r.created)) / DAY_MS);
  const m = median(days.filter((d) => Number.isFinite(d) && d >= 0));
  return m === null ? null : Math.round(m * 10) / 10;
}

/** Totals, categories, statuses, share fixed and median days to fix of reports made since `since`. */
export async function reportFigures(
  db: Kysely<DB>,
  since: Date,
  now: Date,
  options: FigureOptions = {},
): Promise<ReportFigures> {
  const from = since.toISOString();
  const [statusRows, categoryRows, medianDaysToFix] = await Promise.all([
    db
      .selectFrom("reports")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .where(inPeriod(from, options))
      .groupBy("status")
      .execute(),
    db
      .selectFrom("reports")
      .leftJoin("categories", "categories.code", "reports.category_code")
      .select([
        "reports.category_code as code",
        "categories.name as name",
        "categories.is_public as isPublic",
        (eb) => eb.fn.countAll<number>().as("n"),
      ])
      .where(inPeriod(from, options))
      .groupBy(["reports.category_code", "categories.name", "categories.is_public"])
      .execute(),
    medianDaysTo(db, ["fixed"], from, options),
  ]);
  const byStatusMap = new Map(statusRows.map((r) => [r.status, Number(r.n)]));
  const byStatus = REPORT_STATUSES.map((s) => ({ key: s, label: STATUS_LABELS[s], count: byStatusMap.get(s) ?? 0 }));
  const reports = byStatus.reduce((sum, s) => sum + s.count, 0);
  const fixed = byStatusMap.get("fixed") ?? 0;
  // Categories that are not public are shown as one group on public figures, under no name of their own.
  const categories = new Map<string, Counted>();
  for (const r of categoryRows) {
    const shown = options.includeHidden || r.isPublic === 1;
    const key = shown ? r.code : "other";
    const label = shown ? (r.name ?? r.code) : "Other categories";
    const entry = categories.get(key) ?? { key, label, count: 0 };
    entry.count += Number(r.n);
    categories.set(key, entry);
  }
  return {
    from: day(since),
    to: day(now),
    reports,
    fixed,
    shareFixed: reports === 0 ? null : Math.round((fixed / reports) * 1000) / 1000,
    medianDaysToFix,
    byCategory: [...categories.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
    byStatus,
  };
}

/** `YYYY-MM` (month) or `YYYY-MM-DD` of the week's Monday (week) of `reports.created_at`, in UTC. */
function bucketOf(dialect: Dialect, unit: "month" | "week") {
  const col = sql.ref("reports.created_at");
  if (dialect === "postgres") {
    return unit === "month"
      ? sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM')`
      : sql<string>`to_char(date_trunc('week', ${col} at time zone 'UTC'), 'YYYY-MM-DD')`;
  }
  return unit === "month" ? sql<string>`substr(${col}, 1, 7)` : sql<string>`date(${col}, '-6 days', 'weekday 1')`;
}

export interface Bucket {
  /** `YYYY-MM` or the Monday `YYYY-MM-DD`. */
  key: string;
  count: number;
}

/**
 * Reports per month (the last `count` calendar months, this one included) or per week (Monday to Sunday, UTC),
 * with zero for periods without reports.
 */
export async function reportsPer(
  db: Kysely<DB>,
  dialect: Dialect,
  unit: "month" | "week",
  count: number,
  now: Date,
  options: FigureOptions = {},
): Promise<Bucket[]> {
  const starts = Array.from({ length: count }, (_, i) =>
    unit === "month" ? monthStart(now, count - 1 - i) : weekStart(now, count - 1 - i),
  );
  const keys = starts.map((d) => (unit === "month" ? d.toISOString().slice(0, 7) : day(d)));
  const bucket = bucketOf(dialect, unit);
  const rows = await db
    .selectFrom("reports")
    .select([bucket.as("bucket"), (eb) => eb.fn.countAll<number>().as("n")])
    .where(inPeriod((starts[0] as Date).toISOString(), options))
    .groupBy(bucket)
    .execute();
  const byKey = new Map(rows.map((r) => [r.bucket, Number(r.n)]));
  return keys.map((key) => ({ key, count: byKey.get(key) ?? 0 }));
}

/** How long the reports of one category or one department took, as /stats and /stats.json show them. */
export interface TimesRow {
  /** The category's code or the department's name; "other" for categories not listed publicly; null for none. */
  key: string | null;
  label: string;
  reports: number;
  /** Reports with a first public response by staff or the council, and the median days to it (one decimal). */
  firstResponses: number;
  medianDaysToFirstResponse: number | null;
  /** Reports marked fixed at least once, and the median days to the first time. */
  fixes: number;
  medianDaysToFix: number | null;
  /** Reports moved to fixed by their reporter's answer to "Is it fixed?", and their share of `reports` (0..1). */
  fixedByReporter: number;
  shareFixedByReporter: number | null;
}

/** How long things take: per category, per department and for all reports of the period. */
export interface ResponseTimes {
  all: TimesRow;
  byCategory: TimesRow[];
  byDepartment: TimesRow[];
  /** How many reports the figures were made from: the most recent ones of the period, at most MEDIAN_SAMPLE. */
  sampled: number;
}

/** One report's times, in ms since it was made (null when it never happened). */
interface Timed {
  category: string;
  responded: number | null;
  fixed: number | null;
  byReporter: boolean;
}

const roundDays = (ms: number[]) => {
  const m = median(ms.filter((v) => Number.isFinite(v) && v >= 0).map((v) => v / DAY_MS));
  return m === null ? null : Math.round(m * 10) / 10;
};

function timesRow(key: string | null, label: string, reports: Timed[]): TimesRow {
  const responded = reports.flatMap((r) => (r.responded === null ? [] : [r.responded]));
  const fixed = reports.flatMap((r) => (r.fixed === null ? [] : [r.fixed]));
  const byReporter = reports.filter((r) => r.byReporter).length;
  return {
    key,
    label,
    reports: reports.length,
    firstResponses: responded.length,
    medianDaysToFirstResponse: roundDays(responded),
    fixes: fixed.length,
    medianDaysToFix: roundDays(fixed),
    fixedByReporter: byReporter,
    shareFixedByReporter: reports.length === 0 ? null : Math.round((byReporter / reports.length) * 1000) / 1000,
  };
}

function grouped(reports: Timed[], keyOf: (r: Timed) => { key: string | null; label: string }): TimesRow[] {
  const groups = new Map<string, { key: string | null; label: string; reports: Timed[] }>();
  for (const r of reports) {
    const { key, label } = keyOf(r);
    const id = `${key ?? ""}\u0000${label}`;
    const group = groups.get(id) ?? { key, label, reports: [] };
    group.reports.push(r);
    groups.set(id, group);
  }
  return [...groups.values()]
    .map((g) => timesRow(g.key, g.label, g.reports))
    .sort((a, b) => b.reports - a.reports || a.label.localeCompare(b.label));
}

/** The public history's answer of staff or the council: a status change or an update, not hidden by moderators. */
const staffAnswer = sql<SqlBool>`${sql.ref("report_updates.author_kind")} in ('staff', 'council')
  and ${sql.ref("report_updates.event")} in ('status', 'update') and ${publicUpdate}`;

/** The reporter's "Yes, fixed" that moved the report to fixed. */
const reporterFixed = sql<SqlBool>`${sql.ref("report_updates.event")} = 'questionnaire'
  and ${sql.ref("report_updates.author_kind")} = 'reporter' and ${sql.ref("report_updates.status")} = 'fixed'
  and ${sql.ref("report_updates.previous_status")} <> 'fixed'`;

/** Label of the department of reports in categories without one. */
export const NO_DEPARTMENT = "Village volunteers";
const OTHER = { key: "other", label: "Other categories" } as const;

/**
 * How long the reports made since `since` took, per category and per department: the median days to a first public
 * response by staff or the council (a status change or an update in the report's public history), the median days
 * to the first "fixed", and how many were moved to fixed by their reporter ("Is it fixed?"). Made from at most the
 * MEDIAN_SAMPLE most recent reports of the period, one query over their history rows (index on report_id).
 */
export async function responseTimes(db: Kysely<DB>, since: Date, options: FigureOptions = {}): Promise<ResponseTimes> {
  const recent = db
    .selectFrom("reports")
    .select(["reports.id", "reports.created_at", "reports.category_code"])
    .where(inPeriod(since.toISOString(), options))
    .orderBy("reports.created_at", "desc")
    .limit(MEDIAN_SAMPLE)
    .as("recent");
  const [rows, categories] = await Promise.all([
    db
      .selectFrom(recent)
      .leftJoin("report_updates", "report_updates.report_id", "recent.id")
      .select([
        "recent.id as id",
        "recent.created_at as created",
        "recent.category_code as category",
        sql<string | null>`min(case when ${sql.ref("report_updates.status")} = 'fixed'
          then ${sql.ref("report_updates.created_at")} end)`.as("fixed"),
        sql<string | null>`min(case when ${staffAnswer} then ${sql.ref("report_updates.created_at")} end)`.as(
          "responded",
        ),
        sql<number>`max(case when ${reporterFixed} then 1 else 0 end)`.as("byReporter"),
      ])
      .groupBy(["recent.id", "recent.created_at", "recent.category_code"])
      .execute(),
    db.selectFrom("categories").select(["code", "name", "department_name", "is_public"]).execute(),
  ]);
  const categoryOf = new Map(categories.map((c) => [c.code, c]));
  const since0 = (created: string, at: string | null) => (at === null ? null : Date.parse(at) - Date.parse(created));
  const timed: Timed[] = rows.map((r) => ({
    category: r.category,
    responded: since0(r.created, r.responded),
    fixed: since0(r.created, r.fixed),
    byReporter: Number(r.byReporter) === 1,
  }));
  const shown = (code: string) => options.includeHidden || categoryOf.get(code)?.is_public === 1;
  return {
    all: timesRow(null, "All reports", timed),
    byCategory: grouped(timed, (r) =>
      shown(r.category) ? { key: r.category, label: categoryOf.get(r.category)?.name ?? r.category } : OTHER,
    ),
    byDepartment: grouped(timed, (r) => {
      if (!shown(r.category)) return OTHER;
      const department = categoryOf.get(r.category)?.department_name ?? null;
      return { key: department, label: department ?? NO_DEPARTMENT };
    }),
    sampled: timed.length,
  };
}
