import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { pageContext } from "../core/context.js";
import { noneMatchSatisfied } from "../core/http/conditional.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { Chart, formatNumber, monthLabel } from "./charts.js";
import { CategoryAndStatusCharts, Headline, TimesTable } from "./panels.js";
import { PUBLIC_MONTHS, publicStats, publicStatsJson } from "./public.js";

const JSON_CACHE = "public, max-age=300";

/** /stats (public report statistics for residents and the parish), /stats.json (the same figures as JSON) and the staff page /admin/stats. */
export async function statsRoutes(app: FastifyInstance): Promise<void> {
  const { civic } = app;

  app.get("/stats", { schema: { hide: true } }, async (request, reply) => {
    const now = civic.now();
    const stats = await publicStats(civic.database.db, civic.database.dialect, now);
    const f = stats.figures;
    return sendPage(
      reply,
      <Layout
        ctx={pageContext(request)}
        title="Report statistics"
        description="How many problems are reported, in which categories, and how quickly they are fixed."
      >
        <h1>Report statistics</h1>
        <p class="lead">
          Public reports made in the last {PUBLIC_MONTHS} months ({monthLabel(f.from.slice(0, 7))} to today): how many,
          what about, and how quickly they were fixed.
        </p>
        <Headline figures={f} medianLabel="Median time to fix" />
        <p>
          The median time to fix is the middle value of the days from a report to the first time it was marked fixed.
          Reports hidden by moderators are not counted. The same figures are available as <a href="/stats.json">JSON</a>{" "}
          for re-use.
        </p>
        <Chart
          id="stats-month"
          kind="columns"
          title="Reports per month"
          labelHeading="Month"
          valueHeading="Reports"
          data={stats.perMonth.map((b) => ({ label: monthLabel(b.key), value: b.count }))}
        />
        <CategoryAndStatusCharts figures={f} idPrefix="stats" />
        <h2 id="how-long">How long things take</h2>
        <p>
          For the same reports, by category and by the council department (or the village volunteers) that looks after
          it: the median time to a first public response (the first status change or update by staff or the council in
          the report's public history), the median time to the first time it was marked fixed, and how many reports
          their reporter marked fixed by answering "Is it fixed?". A median counts only the reports that got there; a
          dash means none did yet.
          {stats.times.sampled < f.reports
            ? ` These figures are made from the ${formatNumber(stats.times.sampled)} most recent reports.`
            : ""}
        </p>
        <TimesTable
          id="stats-times-category"
          caption="How long things take, by category"
          heading="Category"
          rows={stats.times.byCategory}
        />
        <TimesTable
          id="stats-times-department"
          caption="How long things take, by department"
          heading="Department"
          rows={stats.times.byDepartment}
        />
      </Layout>,
    );
  });

  app.get("/stats.json", { schema: { hide: true } }, async (request, reply) => {
    const now = civic.now();
    const stats = await publicStats(civic.database.db, civic.database.dialect, now);
    const document = publicStatsJson(stats, now);
    // The tag ignores when the figures were made, so an unchanged set of figures answers 304.
    const { generated: _generated, ...figures } = document;
    const etag = `W/"${createHash("sha256").update(JSON.stringify(figures)).digest("base64url").slice(0, 27)}"`;
    reply.header("etag", etag).header("cache-control", JSON_CACHE).header("access-control-allow-origin", "*");
    if (noneMatchSatisfied(request.headers["if-none-match"], etag)) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(document);
  });
}
