import type { Kysely } from "kysely";
import type { AnalyticsKind, DB } from "../core/db/schema.js";
import { addDays } from "./visitors.js";

export interface DailyTraffic {
  day: string;
  views: number;
  /** Unique visitors of that day alone (never to be added across days). */
  visitors: number;
}

/** Every day from `from` to `to` (inclusive, at most 400), with page views and unique visitors; zero when none. */
export async function dailyTraffic(db: Kysely<DB>, from: string, to: string): Promise<DailyTraffic[]> {
  const [views, visitors, live] = await Promise.all([
    db
      .selectFrom("analytics_counts")
      .select(["day", (eb) => eb.fn.sum<number>("count").as("n")])
      .where("kind", "=", "page")
      .where("day", ">=", from)
      .where("day", "<=", to)
      .groupBy("day")
      .execute(),
    db
      .selectFrom("analytics_counts")
      .select(["day", "count"])
      .where("kind", "=", "visitors")
      .where("day", ">=", from)
      .where("day", "<=", to)
      .execute(),
    // Days not rolled up yet (today, and yesterday for a few minutes) still have their hashes.
    db
      .selectFrom("analytics_visitors")
      .select(["day", (eb) => eb.fn.countAll<number>().as("n")])
      .where("day", ">=", from)
      .where("day", "<=", to)
      .groupBy("day")
      .execute(),
  ]);
  const viewsBy = new Map(views.map((r) => [r.day, Number(r.n)]));
  const visitorsBy = new Map<string, number>();
  for (const r of [...visitors.map((v) => ({ day: v.day, n: v.count })), ...live]) {
    visitorsBy.set(r.day, (visitorsBy.get(r.day) ?? 0) + Number(r.n));
  }
  const days: DailyTraffic[] = [];
  for (let day = from, i = 0; day <= to && i < 400; day = addDays(day, 1), i++) {
    days.push({ day, views: viewsBy.get(day) ?? 0, visitors: visitorsBy.get(day) ?? 0 });
  }
  return days;
}

export interface KeyCount {
  key: string;
  count: number;
}

/** The largest totals of one kind of count (pages, referring sites, devices, endpoints) over a range of days. */
export async function topCounts(
  db: Kysely<DB>,
  kind: Exclude<AnalyticsKind, "visitors">,
  from: string,
  to: string,
  limit = 20,
): Promise<KeyCount[]> {
  const rows = await db
    .selectFrom("analytics_counts")
    .select(["key", (eb) => eb.fn.sum<number>("count").as("n")])
    .where("kind", "=", kind)
    .where("day", ">=", from)
    .where("day", "<=", to)
    .groupBy("key")
    .orderBy("n", "desc")
    .orderBy("key")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ key: r.key, count: Number(r.n) }));
}
