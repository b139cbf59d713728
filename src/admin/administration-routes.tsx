import type { FastifyReply, FastifyRequest } from "fastify";
import { problemsOf } from "../core/staff/forms.js";
import { Type } from "typebox";
import { formField } from "../core/http/csrf.js";
import type { FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { listApiKeys } from "../open311/index.js";
import { changeRole, listStaff, staffCreateApiKey, staffRevokeApiKey } from "./administration.js";
import { ApiKeysPage, RolesPage } from "./administration-pages.js";
import { type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Staff roles", path: "/admin/staff", minimum: "admin", order: 70 },
  { label: "Open311 API keys", path: "/admin/api-keys", minimum: "admin", order: 80 },
];

export const posted = (request: FastifyRequest, name: string) => (formField(request.body, name) ?? "").slice(0, 1000);

/** Admin-only pages: staff roles and Open311 API keys. */
export function administrationRoutes(scope: StaffScope): void {
  const civic = scope.civic;

  async function showRoles(
    request: FastifyRequest,
    reply: FastifyReply,
    o: { problems?: FieldProblem[]; status?: number; notice?: boolean } = {},
  ) {
    const staff = await listStaff(civic);
    const problems = o.problems ?? [];
    const values =
      problems.length > 0
        ? { email: posted(request, "email"), role: posted(request, "role"), reason: posted(request, "reason") }
        : {};
    return renderAdminPage(
      request,
      reply,
      "Staff roles",
      (ctx) => (
        <RolesPage staff={staff} csrfToken={ctx.csrfToken} problems={problems} values={values} notice={o.notice} />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }

  scope.get(
    "/staff",
    { schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }) } },
    (request, reply) => showRoles(request, reply, { notice: request.query.done === "1" }),
  );
  scope.post("/staff", { schema: { hide: true } }, async (request, reply) => {
    try {
      await changeRole(
        civic,
        staffViewer(request),
        posted(request, "email"),
        posted(request, "role"),
        posted(request, "reason"),
      );
    } catch (error) {
      return showRoles(request, reply, problemsOf(error));
    }
    return reply.redirect("/admin/staff?done=1", 303);
  });

  async function showKeys(
    request: FastifyRequest,
    reply: FastifyReply,
    o: {
      problems?: FieldProblem[];
      status?: number;
      created?: Awaited<ReturnType<typeof staffCreateApiKey>>;
      revoked?: boolean;
    } = {},
  ) {
    const keys = await listApiKeys(civic.database.db);
    const problems = o.problems ?? [];
    return renderAdminPage(
      request,
      reply,
      "Open311 API keys",
      (ctx) => (
        <ApiKeysPage
          keys={keys}
          csrfToken={ctx.csrfToken}
          problems={problems}
          created={o.created}
          revoked={o.revoked}
        />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }

  scope.get(
    "/api-keys",
    { schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }) } },
    (request, reply) => showKeys(request, reply, { revoked: request.query.done === "revoked" }),
  );
  scope.post("/api-keys", { schema: { hide: true } }, async (request, reply) => {
    try {
      // The new key is shown on this response only (pages are no-store), never after a redirect.
      const created = await staffCreateApiKey(civic, staffViewer(request), posted(request, "name"));
      return showKeys(request, reply, { created });
    } catch (error) {
      return showKeys(request, reply, problemsOf(error));
    }
  });
  scope.post("/api-keys/:id/revoke", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    await staffRevokeApiKey(civic, staffViewer(request), request.params.id);
    return reply.redirect("/admin/api-keys?done=revoked", 303);
  });
}
