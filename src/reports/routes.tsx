import { ModeratedGone } from "../moderation/index.js";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { reporterDefaults } from "../accounts/index.js";
import { pageContext } from "../core/context.js";
import { AppError, type FieldProblem, notFound } from "../core/http/errors.js";
import { deleteExpiredSubmissions, formUse } from "../core/http/single-use.js";
import { publicFormLimit, spamChecks } from "../core/http/public-form.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { webFormIdempotency } from "./idempotency.js";
import { categoryAttributes } from "./attributes.js";
import { mediaStorage } from "../core/media/storage.js";
import { withUploads } from "../core/media/uploads.js";
import { reportsFeed } from "./feed.js";
import { sendAtomFeed } from "../core/http/feed.js";
import { type FormBody, first, readFormBody } from "./form-body.js";
import { formSubmission, reportFormValues } from "./form-submission.js";
import { type KeptPhoto, keepPhotos, loadKeptPhotos } from "./kept-photos.js";
import { isReportStatus, STATUS_LABELS } from "./model.js";
import { Confirmation, ReportForm } from "./pages/form.js";
import { CategoryStep, emptyFormValues, type ReportFormValues } from "./pages/form-fields.js";
import { ReportsList } from "./pages/list.js";
import { ReportDetail } from "./pages/detail.js";
import { reportForwardings } from "./forward.js";
import { type StatusResult, StatusLookup } from "./pages/status.js";
import { duplicateLinks } from "./duplicates.js";
import { followRoutes } from "./follow-routes.js";
import { seenRoutes } from "./seen-routes.js";
import { seenCountOf, seenCountsOf } from "./seen.js";
import { alertRoutes } from "./alert-routes.js";
import { questionnaireRoutes } from "./questionnaire-routes.js";
import { residentUpdateRoutes } from "./resident-update-routes.js";
import { type FeedArea, feedArea, feedAreaFields } from "./alert-feed.js";
import { photoRoutes } from "./photos.js";
import { normaliseReference, looksLikeReference, ReferenceParams } from "./reference.js";
import {
  findReport,
  latestUpdates,
  listPublicReports,
  NEAR_RADIUS_M,
  type NearbyReport,
  nearbyReports,
  publicCategories,
  publicReportsNear,
} from "./repository.js";
import { findPlace, placeNames } from "./places.js";
import { searchPublicReports } from "./search.js";
import { MAX_QUERY_CHARS } from "../core/search.js";
import { provesSent, sentPagePath } from "./sent-page.js";
import { serviceNotice, submitReport } from "./submit.js";
import { can } from "../core/policy.js";
import { isPublic } from "../core/visibility.js";

/** The public forms' minimum fill time, which the report form has too (the tests read it here). */
export { MIN_FILL_MS } from "../core/http/public-form.js";
const PAGE_SIZE = 20;

/** /report, /reports, /reports/{reference}, /reports.atom, /status, report photos, and the mail outbox worker. */
export async function reportRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(photoRoutes);
  await app.register(followRoutes);
  await app.register(seenRoutes);
  await app.register(alertRoutes);
  await app.register(questionnaireRoutes);
  await app.register(residentUpdateRoutes);
  const civic = app.civic;
  const db = () => civic.database.db;
  const { config } = civic;
  const storage = mediaStorage(config);
  const tiles = { tileUrl: config.map.tileUrl, attribution: config.map.tileAttribution, zooms: config.map.zooms };

  async function loadCategory(code: string) {
    if (!code) return undefined;
    return db()
      .selectFrom("categories")
      .selectAll()
      .where("code", "=", code)
      .where("is_public", "=", 1)
      .executeTakeFirst();
  }

  /** South, west, north, east of the square `radiusM` around a point: where the map starts near a place. */
  function aroundPlace(lat: number, lng: number, radiusM: number): [number, number, number, number] {
    const dLat = radiusM / 111_320;
    const dLng = radiusM / (111_320 * Math.max(Math.cos((lat * Math.PI) / 180), 0.01));
    return [lat - dLat, lng - dLng, lat + dLat, lng + dLng];
  }

  /** A spot given in the address, if it is a point inside the village (else none: the form asks as usual). */
  function spotInVillage(lat: number | undefined, lng: number | undefined) {
    const b = config.village.bounds;
    if (lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) return null;
    if (lat < b.south || lat > b.north || lng < b.west || lng > b.east) return null;
    return { lat, lng };
  }

  async function nearbyFor(categoryCode: string, lat: number | null, lng: number | null, placeId: string) {
    let point = lat !== null && lng !== null && Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng } : null;
    if (!point && placeId) {
      const place = await db()
        .selectFrom("places")
        .select(["latitude", "longitude"])
        .where("id", "=", placeId)
        .executeTakeFirst();
      if (place) point = { lat: place.latitude, lng: place.longitude };
    }
    return point ? nearbyReports(db(), { categoryCode, ...point }) : null;
  }

  async function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    values: ReportFormValues,
    problems: FieldProblem[],
    nearby: NearbyReport[] | null,
    keptPhotos: KeptPhoto[],
    status: number,
  ) {
    const category = await loadCategory(values.category);
    if (!category) throw notFound("There is no such category.");
    const places = await db().selectFrom("places").selectAll().orderBy("name").execute();
    const ctx = pageContext(request);
    const b = config.village.bounds;
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title={`${problems.length > 0 ? "Error: " : ""}Report an issue: ${category.name}`}
        description="Report a local, non-urgent problem."
        styles={["leaflet.css"]}
        scripts={["enhance.js", "report-map.js"]}
      >
        <ReportForm
          signedIn={request.viewer !== null}
          csrfToken={ctx.csrfToken}
          category={category}
          definitions={categoryAttributes(category)}
          places={places}
          values={values}
          problems={problems}
          nearby={nearby}
          keptPhotos={keptPhotos}
          map={{
            tileUrl: config.map.tileUrl,
            zooms: config.map.zooms,
            attribution: config.map.tileAttribution,
            centre: config.village.centre,
            bounds: [b.south, b.west, b.north, b.east],
          }}
          uploads={{
            maxPhotos: config.uploads.maxPhotos,
            maxPhotoMb: Math.round(config.uploads.maxPhotoBytes / 1048576),
            maxPhotoBytes: config.uploads.maxPhotoBytes,
          }}
          villageName={config.village.name}
          councilName={config.village.councilName}
        />
      </Layout>,
      status,
    );
  }

  app.get(
    "/report",
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          category: Type.Optional(Type.String({ maxLength: 100 })),
          change: Type.Optional(Type.String({ maxLength: 100 })),
          // "Report a problem here" from a map: the spot, kept through the choice of category.
          lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
          lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
        }),
      },
    },
    async (request, reply) => {
      const { category: code = "", change = "" } = request.query;
      const spot = spotInVillage(request.query.lat, request.query.lng);
      const category = await loadCategory(code);
      // A retired category takes no new reports: its form is not offered, the choice of categories is.
      if (category && !category.retired_at) {
        const values = {
          ...emptyFormValues(category.code),
          ...(await reporterDefaults(request)),
          ...(spot ? { lat: String(spot.lat), lng: String(spot.lng) } : {}),
        };
        return renderForm(request, reply, values, [], null, [], 200);
      }
      const categories = await publicCategories(db());
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title="Report an issue" description="Report a local, non-urgent problem.">
          <CategoryStep categories={categories.filter((c) => !c.retired_at)} selected={change || code} spot={spot} />
        </Layout>,
      );
    },
  );

  app.post(
    "/report",
    {
      schema: { hide: true },
      config: publicFormLimit(civic),
      ...webFormIdempotency,
    },
    async (request, reply) =>
      withUploads(
        request,
        (field) => field === "photos",
        (files) => postReport(request, reply, readFormBody(request.body, files)),
      ),
  );

  /** POST /report with its files in the upload store (removed when this returns). */
  async function postReport(request: FastifyRequest, reply: FastifyReply, form: FormBody) {
    const values = reportFormValues(form);
    const category = await loadCategory(values.category);
    if (!category) {
      throw new AppError("validation_failed", "Choose a category first.", {
        fields: [{ field: "category", message: "Choose a category" }],
      });
    }
    const uploads = form.files.photos ?? [];
    const earlier = await loadKeptPhotos(storage, config.sessionSecret, form.fields.kept_photo ?? []);
    const submission = formSubmission(values, [...earlier.photos, ...uploads], request.viewer?.accountId ?? null);
    const { lat, lng } = submission;
    /** The photos to offer again when the form comes back: earlier ones plus the new ones that are readable. */
    const keep = () =>
      keepPhotos(
        storage,
        config.sessionSecret,
        { db: civic.database.db, now: civic.now() },
        earlier.kept,
        uploads,
        config.uploads.maxPhotoBytes,
      );

    if (first(form, "action") === "check") {
      const nearby = await nearbyFor(category.code, lat, lng, values.place);
      const problems: FieldProblem[] = nearby
        ? []
        : [
            {
              field: "location",
              message: "Choose a street or landmark, or put a pin on the map, to look for reports nearby",
            },
          ];
      return renderForm(request, reply, values, problems, nearby, await keep(), problems.length ? 400 : 200);
    }

    // Spam defences that need no tracking, as on every public form: a field people never see, and a minimum time to
    // fill in the form.
    const { token, problems } = spamChecks(
      civic,
      { _csrf: first(form, "_csrf"), website: first(form, "website") },
      { quick: "That was very quick. Please check your report and press “Send report” again." },
    );
    // A form already accepted (a re-POST, a double click) shows its first result again and creates nothing.
    const use = formUse(civic, token, "report");
    const accepted = await use?.earlier();
    if (accepted) return reply.redirect(sentPagePath(config.sessionSecret, accepted), 303);
    if (problems.length > 0) {
      return renderForm(request, reply, values, problems, null, await keep(), 400);
    }

    try {
      const result = await submitReport(civic, submission, use ? { formSubmission: use } : {});
      if (!result.replayed) await deleteExpiredSubmissions(db(), civic.now());
      return reply.redirect(sentPagePath(config.sessionSecret, result.reference), 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "validation_failed") throw error;
      const nearby = await nearbyFor(category.code, lat, lng, values.place);
      return renderForm(request, reply, values, error.fields, nearby, await keep(), 400);
    }
  }

  app.get(
    "/report/sent/:reference",
    {
      schema: {
        hide: true,
        params: ReferenceParams,
        querystring: Type.Object({ proof: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
      // The proof lets its holder see a report the public cannot: never logged.
      config: { secretParams: ["proof"] },
    },
    async (request, reply) => {
      const { reference } = request.params;
      const found = await db()
        .selectFrom("reports")
        .select(["reference", "visibility"])
        .where("reference", "=", reference)
        .executeTakeFirst();
      // A report the public cannot see is confirmed only to its sender (sentPagePath): to anyone else it does not
      // exist, as on every other public page.
      const shown =
        found && (isPublic(found.visibility) || provesSent(config.sessionSecret, found.reference, request.query.proof));
      if (!shown) throw notFound("There is no report with this reference.");
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout ctx={ctx} title="Thank you: your report has been sent">
          <Confirmation reference={found.reference} serviceNotice={serviceNotice(config.village.councilName)} />
        </Layout>,
      );
    },
  );

  app.get(
    "/report/nearby.json",
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          category: Type.String({ maxLength: 100 }),
          lat: Type.Number({ minimum: -90, maximum: 90 }),
          lng: Type.Number({ minimum: -180, maximum: 180 }),
        }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const items = await nearbyReports(db(), { categoryCode: q.category, lat: q.lat, lng: q.lng });
      return reply.header("cache-control", "no-store").send({
        reports: items.map((r) => ({
          reference: r.reference,
          title: r.title,
          status: r.statusLabel,
          distanceM: Math.round(r.distanceM),
          createdAt: r.createdAt,
          url: `/reports/${r.reference}`,
        })),
      });
    },
  );

  const listFields = {
    category: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.String({ maxLength: 40 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    before: Type.Optional(Type.String({ maxLength: 40 })),
    after: Type.Optional(Type.String({ maxLength: 40 })),
    hide_closed: Type.Optional(Type.Boolean()),
  };
  type ListQuery = Static<ReturnType<typeof Type.Object<typeof listFields>>>;
  /**
   * The page's query: the list's, a street or landmark of the gazetteer to list the reports around (`near`), and what
   * was typed in the search box (`q`): a gazetteer name lists the reports around it, anything else is searched for
   * as words or a reference (reports/search.ts reads at most 200 characters of it).
   */
  const pageQuery = Type.Object({
    ...listFields,
    near: Type.Optional(Type.String({ maxLength: 100 })),
    q: Type.Optional(Type.String({ maxLength: 20_000 })),
  });

  function filterOf(q: ListQuery) {
    const status = q.status && isReportStatus(q.status) ? q.status : undefined;
    return { category: q.category || undefined, status, unresolved: q.hide_closed === true };
  }

  function queryString(
    filter: {
      category?: string | undefined;
      status?: string | undefined;
      unresolved?: boolean | undefined;
      near?: string | undefined;
      q?: string;
    },
    page?: number,
    cursor?: { before: string } | { after: string },
  ) {
    const params = new URLSearchParams();
    if (filter.q) params.set("q", filter.q);
    if (filter.near) params.set("near", filter.near);
    if (filter.category) params.set("category", filter.category);
    if (filter.status) params.set("status", filter.status);
    if (filter.unresolved) params.set("hide_closed", "true");
    if (page && page > 1) params.set("page", String(page));
    // The page number is shown; the cursor finds the rows (keyset), except on the first page.
    if (page && page > 1 && cursor) {
      if ("before" in cursor) params.set("before", cursor.before);
      else params.set("after", cursor.after);
    }
    const s = params.toString();
    return s ? `?${s}` : "";
  }

  app.get("/reports", { schema: { hide: true, querystring: pageQuery } }, async (request, reply) => {
    const q = request.query;
    const filter = filterOf(q);
    const page = q.page ?? 1;
    const words = (q.q ?? "").slice(0, MAX_QUERY_CHARS).trim();
    const typed = words === "" ? (q.near ?? "").trim() : words;
    // The search box tries the gazetteer first: a street or landmark's name lists the reports around it.
    const found = typed === "" ? null : await findPlace(db(), typed);
    const place = found?.place ?? null;
    const offset = { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE };
    const searched = words !== "" && !place ? await searchPublicReports(db(), words, filter, offset) : null;
    const start =
      page > 1 && q.before && !place
        ? { before: q.before }
        : page > 1 && q.after && !place
          ? { after: q.after }
          : { offset: (page - 1) * PAGE_SIZE };
    const [listed, categories, names] = await Promise.all([
      searched ??
        (place
          ? publicReportsNear(db(), { lat: place.latitude, lng: place.longitude }, filter, offset)
          : listPublicReports(db(), filter, { ...start, limit: PAGE_SIZE })),
      publicCategories(db()),
      placeNames(db()),
    ]);
    if (!listed) throw notFound("There is no such page of reports.");
    const { items, total } = listed;
    const search = searched ? { words, capped: searched.capped } : null;
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    if (page > pages) throw notFound("There are not that many pages of reports.");
    const ctx = pageContext(request);
    const feedUrl = `/reports.atom${queryString(filter)}`;
    const categoryName = categories.find((c) => c.code === filter.category)?.name;
    const heading = [categoryName, filter.status ? STATUS_LABELS[filter.status] : null].filter(Boolean).join(", ");
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title={`${place ? `Reports near ${place.name}` : search ? `Reports matching “${search.words}”` : "Reports"}${heading ? `: ${heading}` : ""}${page > 1 ? `, page ${page}` : ""}`}
        description={
          place
            ? `Public reports within ${NEAR_RADIUS_M} metres of ${place.name}, nearest first.`
            : search
              ? `Public reports matching “${search.words}”, best match first.`
              : "Every public report, newest first, those near a street or landmark, or those matching words or a reference, with a map, filters and an Atom feed."
        }
        styles={["leaflet.css"]}
        scripts={["reports-map.js"]}
        head={
          filter.category || filter.status ? (
            <link rel="alternate" type="application/atom+xml" title={`Reports: ${heading}`} href={feedUrl} />
          ) : undefined
        }
      >
        <ReportsList
          items={items}
          total={total}
          page={page}
          pages={pages}
          categories={categories}
          category={filter.category ?? ""}
          status={filter.status ?? ""}
          hideClosed={filter.unresolved}
          mapUrl={`/api/reports/map.json${queryString({ ...filter, near: undefined })}`}
          query={(n) =>
            place
              ? `/reports${queryString({ ...filter, near: place.name }, n)}`
              : search
                ? `/reports${queryString({ ...filter, q: search.words }, n)}`
                : `/reports${queryString(
                    filter,
                    n,
                    n > page ? { before: items.at(-1)?.reference ?? "" } : { after: items[0]?.reference ?? "" },
                  )}`
          }
          feedUrl={feedUrl}
          tiles={tiles}
          mapBounds={
            place
              ? aroundPlace(place.latitude, place.longitude, NEAR_RADIUS_M)
              : [
                  config.village.bounds.south,
                  config.village.bounds.west,
                  config.village.bounds.north,
                  config.village.bounds.east,
                ]
          }
          near={place?.name ?? typed}
          placeNames={names}
          nearPlace={place ? { name: place.name, radiusM: NEAR_RADIUS_M } : null}
          suggestions={found && !found.place && (!search || total === 0) ? found.suggestions : null}
          search={search}
        />
      </Layout>,
    );
  });

  async function sendFeed(
    request: FastifyRequest,
    reply: FastifyReply,
    filter: ReturnType<typeof filterOf>,
    selfUrl: string,
    area: FeedArea | null = null,
  ) {
    const items = area
      ? await area.items(filter)
      : ((await listPublicReports(db(), filter, { offset: 0, limit: 50, withTotal: false, thumbnails: false }))
          ?.items ?? []);
    const [updates, seen] = await Promise.all([
      latestUpdates(
        db(),
        items.map((r) => r.reference),
      ),
      seenCountsOf(
        db(),
        items.map((r) => r.reference),
      ),
    ]);
    const category = filter.category ? await loadCategory(filter.category) : undefined;
    if (filter.category && !category) throw notFound("There is no such category.");
    const title = [
      `${config.village.name} reports`,
      category?.name,
      filter.status ? STATUS_LABELS[filter.status] : undefined,
      area?.label,
    ]
      .filter(Boolean)
      .join(": ");
    return sendAtomFeed(
      request,
      reply,
      reportsFeed(items, {
        title,
        selfUrl,
        pageUrl: `${config.baseUrl}/reports${queryString(filter)}`,
        baseUrl: config.baseUrl,
        updates,
        seen,
      }),
    );
  }

  // The alert choices (alert-feed.ts): near a place within a radius, or on a street.
  const feedQuery = Type.Object({ ...listFields, ...feedAreaFields });
  app.get("/reports.atom", { schema: { hide: true, querystring: feedQuery } }, async (request, reply) => {
    const filter = filterOf(request.query);
    const area = await feedArea(db(), request.query);
    const query = new URLSearchParams([...(area?.params ?? []), ...new URLSearchParams(queryString(filter))]);
    const self = `${config.baseUrl}/reports.atom${query.size > 0 ? `?${query.toString()}` : ""}`;
    return sendFeed(request, reply, filter, self, area);
  });

  app.get(
    "/reports/:reference",
    { schema: { hide: true, params: Type.Object({ reference: Type.String({ maxLength: 120 }) }) } },
    async (request, reply) => {
      const { reference: raw } = request.params;
      if (raw.endsWith(".atom")) {
        const filter = { category: raw.slice(0, -5), status: undefined, unresolved: false };
        return sendFeed(
          request,
          reply,
          filter,
          `${config.baseUrl}/reports/${encodeURIComponent(filter.category)}.atom`,
        );
      }
      const reference = normaliseReference(raw);
      if (reference !== raw && looksLikeReference(reference)) {
        return reply.redirect(`/reports/${reference}`, 301);
      }
      const staff = can(request.viewer, "staff.enter");
      const found = await findReport(db(), "", reference, { staff });
      if (found.kind === "removed" || found.kind === "hidden") {
        return sendPage(
          reply,
          <Layout ctx={pageContext(request)} title="This report is no longer shown">
            <ModeratedGone reference={reference} removed={found.kind === "removed"} />
          </Layout>,
          410,
        );
      }
      if (found.kind !== "found") throw notFound("There is no public report with this reference.");
      const r = found.report;
      const [links, seen, sent] = await Promise.all([
        duplicateLinks(db(), r.reference, { staff }),
        seenCountOf(db(), r.reference),
        reportForwardings(db(), r.reference),
      ]);
      const forwardings = sent.filter((f) => f.state === "sent");
      // Its link preview shows the first photo the public sees (the derived full size, on this site).
      const preview = r.photos.find((ph) => isPublic(ph.visibility));
      const ctx = pageContext(request);
      return sendPage(
        reply,
        <Layout
          ctx={ctx}
          title={`${r.title} (${r.reference})`}
          description={`${r.categoryName} report: ${r.statusLabel}.`}
          image={preview ? `${config.baseUrl}${preview.full}` : undefined}
          styles={["leaflet.css"]}
          scripts={["report-view-map.js"]}
        >
          <ReportDetail
            r={r}
            tiles={tiles}
            csrfToken={ctx.csrfToken}
            links={links}
            signedIn={ctx.signedIn === true}
            seen={{ count: seen, signedIn: ctx.signedIn === true }}
            forwardings={forwardings}
            maxPhotoMb={Math.round(config.uploads.maxPhotoBytes / 1048576)}
          />
        </Layout>,
      );
    },
  );

  app.get(
    "/status",
    {
      schema: {
        hide: true,
        querystring: Type.Object({ reference: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
    },
    async (request, reply) => {
      const given = (request.query.reference ?? "").trim();
      let result: StatusResult = { kind: "none" };
      let status = 200;
      if (given) {
        const reference = normaliseReference(given);
        if (!looksLikeReference(reference)) {
          result = { kind: "invalid", reference: given };
          status = 400;
        } else {
          const found = await findReport(db(), "", reference);
          if (found.kind === "found") result = { kind: "found", report: found.report };
          else if (found.kind === "unknown") {
            result = { kind: "unknown", reference };
            status = 404;
          } else result = { kind: "not-public", reference };
        }
      }
      const ctx = pageContext(request);
      const error = result.kind === "unknown" || result.kind === "invalid";
      return sendPage(
        reply,
        <Layout
          ctx={ctx}
          scripts={["enhance.js"]}
          title={`${error ? "Error: " : ""}Check a report's status`}
          description="Look up a report by its reference number."
        >
          <StatusLookup value={given} result={result} />
        </Layout>,
        status,
      );
    },
  );
}
