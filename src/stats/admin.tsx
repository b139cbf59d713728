import { Type } from "typebox";
import type { StaffScope } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import { type DailyTraffic, dailyTraffic, type KeyCount, topCounts } from "../analytics/index.js";
import { addDays, statsDay } from "../analytics/index.js";
import { Chart, dayLabel, formatNumber } from "./charts.js";
import { type CommunityCount, communityCounts } from "./community.js";
import {
  medianDaysTo,
  monthStart,
  type ReportFigures,
  reportFigures,
  reportsPer,
  type Bucket,
  type ResponseTimes,
  responseTimes,
} from "./figures.js";
import { PUBLIC_MONTHS } from "./public.js";
import { CategoryAndStatusCharts, days, Headline, TimesTable } from "./panels.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Statistics", path: "/admin/stats", minimum: "moderator", order: 50 },
];

const PERIODS = [7, 30, 90] as const;
const WEEKS = 12;

const StatsQuery = Type.Object({
  days: Type.Optional(Type.Union(PERIODS.map((d) => Type.Literal(String(d))))),
});

interface AdminStats {
  period: number;
  traffic: DailyTraffic[];
  pages: KeyCount[];
  referrers: KeyCount[];
  devices: KeyCount[];
  endpoints: KeyCount[];
  figures: ReportFigures;
  medianToFinished: number | null;
  perWeek: Bucket[];
  times: ResponseTimes;
  community: CommunityCount[];
}

function StatsPage({ s, today }: { s: AdminStats; today: string }) {
  const views = s.traffic.reduce((sum, d) => sum + d.views, 0);
  const visitorsToday = s.traffic.find((d) => d.day === today)?.visitors ?? 0;
  return (
    <>
      <h1>Statistics</h1>
      <form method="get" action="/admin/stats" class="inline-form">
        <label for="stats-days">Visitor figures for the last</label>{" "}
        <select id="stats-days" name="days">
          {PERIODS.map((d) => (
            <option key={d} value={String(d)} selected={d === s.period}>
              {d} days
            </option>
          ))}
        </select>{" "}
        <button type="submit">Show</button>
      </form>

      <h2>Visitors</h2>
      <p>
        Counted on the server without cookies: page views by page (never the address typed or its query), the referring
        site's domain, the kind of device, and unique visitors per day. A visitor is recognised only within one day, so
        daily figures must not be added up: someone who comes on two days counts on both. Bots, staff pages and the APIs
        are not page views.
      </p>
      <dl class="stat-tiles">
        <div>
          <dt>Page views, last {s.period} days</dt>
          <dd>{formatNumber(views)}</dd>
        </div>
        <div>
          <dt>Unique visitors today</dt>
          <dd>{formatNumber(visitorsToday)}</dd>
        </div>
      </dl>
      <Chart
        id="admin-views"
        kind="columns"
        title="Page views per day"
        labelHeading="Day"
        valueHeading="Page views"
        data={s.traffic.map((d) => ({ label: dayLabel(d.day), value: d.views }))}
        extra={[{ heading: "Unique visitors that day", values: s.traffic.map((d) => d.visitors) }]}
      />
      <Chart
        id="admin-visitors"
        kind="columns"
        title="Unique visitors per day"
        labelHeading="Day"
        valueHeading="Unique visitors"
        data={s.traffic.map((d) => ({ label: dayLabel(d.day), value: d.visitors }))}
      />
      {(
        [
          ["pages", "Top pages", "Page", "Page views", s.pages],
          ["referrers", "Referring sites", "Site", "Page views", s.referrers],
          ["devices", "Devices", "Device", "Page views", s.devices],
          ["endpoints", "API and feed requests", "Endpoint", "Requests", s.endpoints],
        ] as const
      ).map(([id, title, labelHeading, valueHeading, rows]) => (
        <Chart
          key={id}
          id={`admin-${id}`}
          kind="bars"
          title={title}
          labelHeading={labelHeading}
          valueHeading={valueHeading}
          data={rows.map((r) => ({ label: r.key, value: r.count }))}
        />
      ))}

      <h2>Reports</h2>
      <p>
        Reports made in the last {PUBLIC_MONTHS} months, including those hidden by moderators (the public figures on{" "}
        <a href="/stats">/stats</a> leave them out).
      </p>
      <Headline figures={s.figures} medianLabel="Median time to fixed" />
      <dl class="stat-tiles">
        <div>
          <dt>Median time to fixed or closed</dt>
          <dd>{days(s.medianToFinished)}</dd>
        </div>
      </dl>
      <Chart
        id="admin-weeks"
        kind="columns"
        title={`Reports per week (last ${WEEKS} weeks, weeks from Monday)`}
        labelHeading="Week from"
        valueHeading="Reports"
        data={s.perWeek.map((b) => ({ label: dayLabel(b.key), value: b.count }))}
      />
      <CategoryAndStatusCharts figures={s.figures} idPrefix="admin" />
      <h3>How long things take</h3>
      <p>
        As on <a href="/stats#how-long">/stats</a>, with hidden reports and every category by its own name: the median
        time to a first public response by staff or the council, to fixed, and the reports their reporter marked fixed.
      </p>
      <TimesTable
        id="admin-times-category"
        caption="How long things take, by category"
        heading="Category"
        rows={s.times.byCategory}
      />
      <TimesTable
        id="admin-times-department"
        caption="How long things take, by department"
        heading="Department"
        rows={s.times.byDepartment}
      />

      <h2>Community</h2>
      {s.community.length === 0 ? (
        <p>Ideas, volunteer sign-ups and newsletter subscribers will be counted here once those features are in use.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Community figures</caption>
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Count</th>
            </tr>
          </thead>
          <tbody>
            {s.community.map((c) => (
              <tr key={c.label}>
                <th scope="row">{c.label}</th>
                <td>{formatNumber(c.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** /admin/stats: visitor statistics and the platform's own figures, for staff. */
export async function statsAdminRoutes(app: StaffScope): Promise<void> {
  const { civic } = app;
  app.get("/stats", { schema: { hide: true, querystring: StatsQuery } }, async (request, reply) => {
    const period = Number(request.query.days ?? 30);
    const now = civic.now();
    const db = civic.database.db;
    const today = statsDay(now);
    const from = addDays(today, -(period - 1));
    const since = monthStart(now, PUBLIC_MONTHS - 1);
    const staff = { includeHidden: true };
    const [traffic, pages, referrers, devices, endpoints, figures, medianToFinished, perWeek, times, community] =
      await Promise.all([
        dailyTraffic(db, from, today),
        topCounts(db, "page", from, today),
        topCounts(db, "referrer", from, today),
        topCounts(db, "device", from, today),
        topCounts(db, "endpoint", from, today),
        reportFigures(db, since, now, staff),
        medianDaysTo(db, ["fixed", "closed"], since.toISOString(), staff),
        reportsPer(db, civic.database.dialect, "week", WEEKS, now, staff),
        responseTimes(db, since, staff),
        communityCounts(civic.database),
      ]);
    const s: AdminStats = {
      period,
      traffic,
      pages,
      referrers,
      devices,
      endpoints,
      figures,
      medianToFinished,
      perWeek,
      times,
      community,
    };
    return renderAdminPage(request, reply, "Statistics", () => <StatsPage s={s} today={today} />);
  });
}
