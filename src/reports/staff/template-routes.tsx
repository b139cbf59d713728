import type { FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { formField } from "../../core/http/csrf.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { IdParams } from "../../core/http/ids.js";
import { problemsOf } from "../../core/staff/forms.js";
import { type StaffScope, staffViewer } from "../../core/staff/guard.js";
import { renderAdminPage } from "../../core/staff/layout.js";
import { activeCategories } from "./actions.js";
import { TEMPLATES_PATH, TemplatesPage } from "./template-pages.js";
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  type ResponseTemplate,
  type TemplateInput,
  templateOr404,
  updateTemplate,
} from "./templates.js";

/** A posted field as typed, capped well above the form's own limits (so "too long" is still said). */
const posted = (request: FastifyRequest, name: string, max = 10_000) =>
  (formField(request.body, name) ?? "").slice(0, max);

const NOTICES: Record<string, string> = {
  added: "The template is added.",
  saved: "The changes are saved.",
  removed: "The template is removed.",
};
const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });
const notice = (query: Static<typeof Done>) => NOTICES[query.done ?? ""];
const hide = { hide: true };

const blank: TemplateInput = { title: "", category: "", status: "fixed", body: "", reason: "" };
const stored = (t: ResponseTemplate): TemplateInput => ({
  title: t.title,
  category: t.categoryCode ?? "",
  status: t.status,
  body: t.body,
  reason: "",
});

/** Admin-only pages for the response templates (registered behind the admin guard by the manifest). */
export function responseTemplateRoutes(scope: StaffScope): void {
  const civic = scope.civic;
  const db = () => civic.database.db;

  const input = (request: FastifyRequest): TemplateInput => ({
    title: posted(request, "title"),
    category: posted(request, "category"),
    status: posted(request, "status"),
    body: posted(request, "body"),
    reason: posted(request, "reason"),
  });

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    editingId: number | null,
    values: TemplateInput | null,
    o: { problems?: FieldProblem[]; status?: number; notice?: string } = {},
  ) {
    const [templates, categories, editing] = await Promise.all([
      listTemplates(db()),
      activeCategories(db()),
      editingId === null ? undefined : templateOr404(db(), editingId),
    ]);
    const problems = o.problems ?? [];
    return renderAdminPage(
      request,
      reply,
      editing ? `Response template: ${editing.title}` : "Response templates",
      (ctx) => (
        <TemplatesPage
          csrfToken={ctx.csrfToken}
          templates={templates}
          editing={editing}
          categories={categories}
          values={values ?? (editing ? stored(editing) : blank)}
          problems={problems}
          notice={o.notice}
        />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }

  scope.get("/response-templates", { schema: { ...hide, querystring: Done } }, (request, reply) =>
    show(request, reply, null, null, { notice: notice(request.query) }),
  );
  scope.post("/response-templates", { schema: hide }, async (request, reply) => {
    const values = input(request);
    try {
      const id = await createTemplate(civic, staffViewer(request), values);
      return reply.redirect(`${TEMPLATES_PATH}/${id}?done=added`, 303);
    } catch (error) {
      return show(request, reply, null, values, problemsOf(error));
    }
  });
  scope.get("/response-templates/:id", { schema: { ...hide, params: IdParams, querystring: Done } }, (request, reply) =>
    show(request, reply, request.params.id, null, { notice: notice(request.query) }),
  );
  scope.post("/response-templates/:id", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    const values = input(request);
    try {
      await updateTemplate(civic, staffViewer(request), request.params.id, values);
      return reply.redirect(`${TEMPLATES_PATH}/${request.params.id}?done=saved`, 303);
    } catch (error) {
      return show(request, reply, request.params.id, values, problemsOf(error));
    }
  });
  scope.post("/response-templates/:id/delete", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    try {
      await deleteTemplate(civic, staffViewer(request), request.params.id, posted(request, "delete_reason", 1000));
      return reply.redirect(`${TEMPLATES_PATH}?done=removed`, 303);
    } catch (error) {
      return show(request, reply, request.params.id, null, problemsOf(error));
    }
  });
}
