import { pageHref } from "../core/staff/pager.js";
import { Type } from "typebox";
import { AUDIT_PAGE_SIZE, type AuditFilter, auditVocabulary, listAudit } from "../core/staff/audit.js";
import { guardedScope, type StaffScope } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import { AuditLogPage } from "./log-page.js";
import { staffPages } from "../core/staff/console.js";
import { type StaffNavEntry, staffNav } from "../core/staff/nav.js";
import { administrationRoutes } from "./administration-routes.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Staff home", path: "/admin", minimum: "moderator", order: 0 },
  { label: "Audit log", path: "/admin/log", minimum: "moderator", order: 90 },
];

const DATE = "^\\d{4}-\\d{2}-\\d{2}$";
const LogQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 100 })),
  item_type: Type.Optional(Type.String({ maxLength: 100 })),
  item_id: Type.Optional(Type.String({ maxLength: 100 })),
  actor: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(Type.Union([Type.Literal(""), Type.String({ pattern: DATE })])),
  to: Type.Optional(Type.Union([Type.Literal(""), Type.String({ pattern: DATE })])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
});

/** The staff console's shell: /admin (the pages the viewer may open) and the audit log. */
export async function adminRoutes(app: StaffScope): Promise<void> {
  const db = () => app.civic.database.db;
  app.get("", { schema: { hide: true } }, async (request, reply) => {
    const entries = staffNav(staffPages(app.civic.features), request.viewer).filter((e) => e.path !== "/admin");
    return renderAdminPage(request, reply, "Staff console", () => (
      <>
        <h1>Staff console</h1>
        <p>
          You are signed in as {request.viewer?.label} ({request.viewer?.role}). Everything you do here is recorded in
          the audit log.
        </p>
        <ul class="staff-home">
          {entries.map((e) => (
            <li key={e.path}>
              <a href={e.path}>{e.label}</a>
            </li>
          ))}
        </ul>
      </>
    ));
  });

  app.get("/log", { schema: { hide: true, querystring: LogQuery } }, async (request, reply) => {
    const q = request.query;
    const filter: AuditFilter = {
      action: q.action || undefined,
      itemType: q.item_type || undefined,
      itemId: q.item_id || undefined,
      actorId: q.actor || undefined,
      from: q.from || undefined,
      to: q.to || undefined,
    };
    const page = q.page ?? 1;
    const [{ rows, total }, vocabulary] = await Promise.all([listAudit(db(), filter, page), auditVocabulary(db())]);
    const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE));
    const query = (n: number) => pageHref("/admin/log", q, n);
    return renderAdminPage(request, reply, "Audit log", () => (
      <AuditLogPage
        rows={rows}
        total={total}
        page={page}
        pages={pages}
        filter={filter}
        actions={vocabulary.actions}
        itemTypes={vocabulary.itemTypes}
        query={query}
      />
    ));
  });
  await guardedScope(app, "admin", (scope) => {
    administrationRoutes(scope);
  });
}
