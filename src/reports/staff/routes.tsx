import { pageHref } from "../../core/staff/pager.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { formField } from "../../core/http/csrf.js";
import { AppError } from "../../core/http/errors.js";
import { isReportStatus, REPORT_STATUSES } from "../model.js";
import { ReferenceParams } from "../reference.js";
import type { Viewer } from "../../core/context.js";
import { type StaffScope, staffViewer } from "../../core/staff/guard.js";
import { can } from "../../core/policy.js";
import { renderAdminPage } from "../../core/staff/layout.js";
import type { StaffNavEntry } from "../../core/staff/nav.js";
import { INBOX_PAGE_SIZE, INBOX_SORTS, type InboxFilter, listInbox, staffMapReports } from "./inbox.js";
import { BBOX_PATTERN, parseBbox } from "../map-data.js";
import { InboxPage, StaffReportPage } from "./pages.js";
import {
  activeCategories,
  staffAssign,
  staffChangeCategory,
  staffForwardAgain,
  staffMarkDuplicate,
  staffMembers,
} from "./actions.js";
import { addStaffNote, loadStaffReport, staffChangeStatus } from "./triage.js";
import { templatesFor, updateTextOf } from "./templates.js";
import { moderate, redactReport } from "../../moderation/index.js";
import { loadReportModeration } from "./moderation-view.js";
import { reportForwardings } from "../forward.js";
import { staffPhotoRoutes } from "./photos.js";
import { parseId } from "../../core/http/ids.js";

/** The same error with its fields named as the staff view's form posted them (several forms share a page). */
function asPosted(error: AppError, names: Record<string, string>): AppError {
  return new AppError(error.code, error.message, {
    fields: error.fields.map((f) => ({ field: names[f.field] ?? f.field, message: f.message })),
  });
}

/** The parts of a report moderated on its own from the staff view, by the moderated kind's name. */
const MODERATED_PARTS = { photo: "report_photos", update: "report_updates" } as const;

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Reports inbox", path: "/admin/reports", minimum: "moderator", order: 10 },
  { label: "Response templates", path: "/admin/response-templates", minimum: "admin", order: 62 },
];

const DATE = "^\\d{4}-\\d{2}-\\d{2}$";
const OptionalDate = Type.Optional(Type.Union([Type.Literal(""), Type.String({ pattern: DATE })]));
const InboxQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Type.Literal(""), ...REPORT_STATUSES.map((s) => Type.Literal(s))])),
  category: Type.Optional(Type.String({ maxLength: 100 })),
  from: OptionalDate,
  to: OptionalDate,
  /** "me", "none" or a staff account id. */
  assigned: Type.Optional(Type.String({ maxLength: 100 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
  sort: Type.Optional(Type.Union(INBOX_SORTS.map((s) => Type.Literal(s)))),
});
const { page: _page, sort: _sort, ...inboxFilterFields } = InboxQuery.properties;
const InboxMapQuery = Type.Object({
  ...inboxFilterFields,
  bbox: Type.String({ maxLength: 100, pattern: BBOX_PATTERN }),
  zoom: Type.Integer({ minimum: 0, maximum: 20 }),
});

/** A posted text field ("" when missing). */
function posted(request: FastifyRequest, name: string): string {
  return formField(request.body, name) ?? "";
}

/** Staff triage: the inbox, one report's staff view, status changes and private notes. */
export function triageRoutes(scope: StaffScope): void {
  const civic = scope.civic;
  const db = () => civic.database.db;
  const { map } = civic.config;
  const tiles = { tileUrl: map.tileUrl, attribution: map.tileAttribution, zooms: map.zooms };
  const village = civic.config.village.bounds;
  staffPhotoRoutes(scope);

  /** The inbox's filter from its query (the page's and its map's). */
  function inboxFilter(request: FastifyRequest, q: Omit<Static<typeof InboxMapQuery>, "bbox" | "zoom">): InboxFilter {
    return {
      q: q.q || undefined,
      status: q.status && isReportStatus(q.status) ? q.status : undefined,
      category: q.category || undefined,
      from: q.from || undefined,
      to: q.to || undefined,
      assigned: q.assigned === "me" ? staffViewer(request).accountId : q.assigned || undefined,
    };
  }

  // The map of the filtered inbox (reports-map.js asks it for the box in view): every visibility, staff only.
  scope.get("/reports/map.json", { schema: { hide: true, querystring: InboxMapQuery } }, async (request, reply) => {
    const { bbox, zoom, ...rest } = request.query;
    const answer = await staffMapReports(db(), inboxFilter(request, rest), parseBbox(bbox), zoom);
    return reply.header("cache-control", "private, no-store").send(answer);
  });

  scope.get("/reports", { schema: { hide: true, querystring: InboxQuery } }, async (request, reply) => {
    const q = request.query;
    const filter = inboxFilter(request, q);
    const page = q.page ?? 1;
    const sort = q.sort ?? "";
    const [{ rows, total }, categories, staff] = await Promise.all([
      listInbox(db(), filter, page, sort, civic.now()),
      db().selectFrom("categories").selectAll().orderBy("sort_order").orderBy("name").execute(),
      staffMembers(db()),
    ]);
    const pages = Math.max(1, Math.ceil(total / INBOX_PAGE_SIZE));
    const query = (n: number) => pageHref("/admin/reports", q, n);
    return renderAdminPage(
      request,
      reply,
      "Reports inbox",
      () => (
        <InboxPage
          rows={rows}
          total={total}
          page={page}
          pages={pages}
          filter={filter}
          categories={categories}
          // The viewer is "Me": this page shows back its search, so it carries none of their own details (the
          // compressed length would tell a right guess at them: issue 33 #6).
          staff={staff.filter((s) => s.id !== staffViewer(request).accountId)}
          assigned={q.assigned === staffViewer(request).accountId ? "me" : (q.assigned ?? "")}
          query={query}
          sort={sort}
          mapUrl={pageHref("/admin/reports/map.json", { ...q, sort: undefined }, 1)}
          mapBounds={[village.south, village.west, village.north, village.east]}
          tiles={tiles}
        />
      ),
      { styles: ["leaflet.css"], scripts: ["reports-map.js"] },
    );
  });

  async function showReport(
    request: FastifyRequest,
    reply: FastifyReply,
    reference: string,
    options: { problems?: AppError; values?: Record<string, string>; notice?: string } = {},
  ) {
    const [r, categories, staff] = await Promise.all([
      loadStaffReport(db(), reference),
      activeCategories(db()),
      staffMembers(db()),
    ]);
    const [templates, moderation, forwardings] = await Promise.all([
      templatesFor(db(), r.categoryCode, r.next),
      loadReportModeration(db(), r, civic.now()),
      reportForwardings(db(), r.reference),
    ]);
    const problems = options.problems
      ? options.problems.fields.length > 0
        ? options.problems.fields
        : [{ field: "form", message: options.problems.message }]
      : [];
    return renderAdminPage(
      request,
      reply,
      `Report ${r.reference}`,
      (ctx) => (
        <StaffReportPage
          r={r}
          csrfToken={ctx.csrfToken}
          problems={problems}
          values={options.values ?? {}}
          notice={options.notice}
          choices={{ categories, staff }}
          templates={templates}
          moderation={moderation}
          forwardings={forwardings}
          tiles={tiles}
          isAdmin={can(request.viewer, "staff.administer")}
        />
      ),
      {
        status: options.problems ? options.problems.status : 200,
        hasErrors: problems.length > 0,
        styles: ["leaflet.css"],
        scripts: templates.length > 0 ? ["report-view-map.js", "response-templates.js"] : ["report-view-map.js"],
      },
    );
  }

  scope.get(
    "/reports/:reference",
    {
      schema: {
        hide: true,
        params: ReferenceParams,
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }),
      },
    },
    async (request, reply) => showReport(request, reply, request.params.reference, { notice: request.query.done }),
  );

  /**
   * Moderating the report, one of its photos or one of its updates from its staff view: the same decision (and
   * audit, strikes and mail to the author) as /admin/moderation. Each form names its fields after its item
   * ("moderation_…" for the report, "photo_12_…" for photo 12), so a problem is shown at the form it came from.
   */
  scope.post(
    "/reports/:reference/moderate",
    { schema: { hide: true, params: ReferenceParams } },
    async (request, reply) => {
      const actor = staffViewer(request);
      const reference = request.params.reference;
      const target = posted(request, "target");
      let kind: string;
      let id: string;
      if (target === "report") {
        kind = "report";
        id = reference;
      } else if (target === "photo" || target === "update") {
        const n = parseId(posted(request, "item"));
        const table = MODERATED_PARTS[target];
        const part =
          n === null
            ? undefined
            : await db()
                .selectFrom(table)
                .innerJoin("reports", "reports.id", `${table}.report_id`)
                .select(`${table}.id as id`)
                .where(`${table}.id`, "=", n)
                .where("reports.reference", "=", reference)
                .executeTakeFirst();
        if (!part) throw new AppError("not_found", `There is no such ${target} on this report.`);
        kind = target;
        id = String(part.id);
      } else {
        throw new AppError("bad_request", "Choose the report, a photo or an update to moderate.");
      }
      const prefix = kind === "report" ? "moderation" : `${kind}_${id}`;
      const names = { action: `${prefix}_action`, reason: `${prefix}_reason` };
      return formAction(
        request,
        reply,
        reference,
        Object.values(names),
        () =>
          moderate(civic, {
            kind,
            id,
            action: posted(request, names.action),
            reason: posted(request, names.reason),
            actor: { accountId: actor.accountId, role: actor.role },
          }),
        "moderated",
        names,
      );
    },
  );

  /** Redacting the report's title or description from its staff view: moderation's redaction, audited there. */
  scope.post(
    "/reports/:reference/redact",
    { schema: { hide: true, params: ReferenceParams } },
    async (request, reply) => {
      const actor = staffViewer(request);
      const reference = request.params.reference;
      const names = { title: "redact_title", description: "redact_description", reason: "redact_reason" };
      return formAction(
        request,
        reply,
        reference,
        Object.values(names),
        () =>
          redactReport(civic, {
            reference,
            title: posted(request, names.title),
            description: posted(request, names.description),
            reason: posted(request, names.reason),
            actor: { accountId: actor.accountId, role: actor.role },
          }),
        "redacted",
        names,
      );
    },
  );

  /**
   * Runs a form action; a validation problem re-renders the staff view with the message and what was typed, its
   * fields named as `posted` names them (several forms share the page) when given.
   */
  async function formAction(
    request: FastifyRequest,
    reply: FastifyReply,
    reference: string,
    fields: string[],
    action: () => Promise<unknown>,
    done: string,
    postedAs?: Record<string, string>,
  ) {
    try {
      await action();
    } catch (error) {
      if (error instanceof AppError && error.code === "validation_failed") {
        const values = Object.fromEntries(fields.map((f) => [f, posted(request, f).slice(0, 5000)]));
        return showReport(request, reply, reference, {
          problems: postedAs ? asPosted(error, postedAs) : error,
          values,
        });
      }
      throw error;
    }
    return reply.redirect(`/admin/reports/${encodeURIComponent(reference)}?done=${done}`, 303);
  }

  scope.post(
    "/reports/:reference/status",
    { schema: { hide: true, params: ReferenceParams } },
    async (request, reply) => {
      const viewer = staffViewer(request);
      const reference = request.params.reference;
      return formAction(
        request,
        reply,
        reference,
        ["status", "note", "template"],
        async () =>
          staffChangeStatus(civic, viewer, reference, {
            status: posted(request, "status"),
            // A chosen response template's text when none is typed (templates.ts).
            note: await updateTextOf(db(), reference, {
              note: posted(request, "note"),
              template: posted(request, "template"),
              status: posted(request, "status"),
            }),
            expected: posted(request, "expected"),
          }),
        "status",
      );
    },
  );

  scope.post(
    "/reports/:reference/notes",
    { schema: { hide: true, params: ReferenceParams } },
    async (request, reply) => {
      const viewer = staffViewer(request);
      const reference = request.params.reference;
      return formAction(
        request,
        reply,
        reference,
        ["body"],
        () => addStaffNote(civic, viewer, reference, posted(request, "body")),
        "note",
      );
    },
  );

  /** The triage actions with one form each: which fields they post and what they do. */
  const actions: {
    name: string;
    fields: string[];
    run: (viewer: Viewer, reference: string, field: (name: string) => string) => Promise<void>;
  }[] = [
    {
      name: "category",
      fields: ["category", "category_reason"],
      run: (viewer, reference, field) =>
        staffChangeCategory(civic, viewer, reference, {
          category: field("category"),
          expected: field("expected"),
          reason: field("category_reason"),
        }),
    },
    {
      name: "forward",
      fields: ["forward_reason"],
      run: (viewer, reference, field) =>
        staffForwardAgain(civic, viewer, reference, { reason: field("forward_reason") }),
    },
    {
      name: "duplicate",
      fields: ["original", "duplicate_note"],
      run: (viewer, reference, field) =>
        staffMarkDuplicate(civic, viewer, reference, {
          original: field("original"),
          note: field("duplicate_note"),
          expected: field("expected"),
        }),
    },
    {
      name: "assign",
      fields: ["assignee"],
      run: (viewer, reference, field) =>
        staffAssign(civic, viewer, reference, { assignee: field("assignee"), expected: field("expected") }),
    },
  ];
  for (const a of actions) {
    scope.post(
      `/reports/:reference/${a.name}`,
      { schema: { hide: true, params: ReferenceParams } },
      async (request, reply) => {
        const viewer = staffViewer(request);
        const reference = request.params.reference;
        return formAction(
          request,
          reply,
          reference,
          a.fields,
          () => a.run(viewer, reference, (name) => posted(request, name)),
          a.name,
        );
      },
    );
  }
}
