import type { FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { problemsOf } from "../core/staff/forms.js";
import { type StaffScope, staffViewer } from "../core/staff/guard.js";
import { renderAdminPage } from "../core/staff/layout.js";
import type { StaffNavEntry } from "../core/staff/nav.js";
import type { Category } from "../core/db/schema.js";
import { formField } from "../core/http/csrf.js";
import { AppError, type FieldProblem } from "../core/http/errors.js";
import { IdParams } from "../core/http/ids.js";
import { categoryAttributes } from "../reports/index.js";
import {
  type CategoryInput,
  categoryOr404,
  createCategory,
  keywordText,
  listCategories,
  setRetired,
  updateCategory,
} from "./categories.js";
import {
  createDepartment,
  deleteDepartment,
  type DepartmentInput,
  listDepartments,
  updateDepartment,
} from "./departments.js";
import { CategoriesPage, CategoryFormPage, DepartmentsPage } from "./pages.js";
import { DeliverySection, type DeliveryFormValues, deliveryValues } from "./delivery-pages.js";
import {
  checkDepartmentConnection,
  type ConnectionCheck,
  deliverySettings,
  MAPPING_CODE,
  MAPPING_CODE_MESSAGE,
  parseMapping,
  parseStatusTable,
  setDepartmentDelivery,
} from "./delivery.js";
import { emptyQuestion, QuestionPage, QuestionsPage, questionValues } from "./question-pages.js";
import { addQuestion, editQuestion, moveQuestion, type QuestionInput, removeQuestion } from "./questions.js";

/** This feature's entries in the staff navigation (read by its manifest). */
export const STAFF_PAGES: StaffNavEntry[] = [
  { label: "Categories", path: "/admin/categories", minimum: "admin", order: 60 },
  { label: "Departments", path: "/admin/departments", minimum: "admin", order: 65 },
];

/** A posted field as typed (capped: the page's own limits are far below). */
const posted = (request: FastifyRequest, name: string, max = 2000) =>
  (formField(request.body, name) ?? "").slice(0, max);

const NOTICES: Record<string, string> = {
  created: "The category is added.",
  saved: "The changes are saved.",
  retired: "The category is retired.",
  unretired: "The category is back in use.",
  added: "The question is added.",
  moved: "The question is moved.",
  removed: "The question is removed; earlier answers keep their label.",
  department: "The department is saved.",
  delivery: "How reports reach the department is saved.",
  "delivery-key": "How reports reach the department is saved. The API key is stored sealed; it is not shown again.",
  deleted: "The department is deleted.",
};
/** `?done=` on the pages a successful post redirects to: which notice they show. */
const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });
const notice = (query: Static<typeof Done>) => NOTICES[query.done ?? ""];
/** How a page is shown: with the problems of a refused post (and its status), or with the notice of a done one. */
type Shown = { problems?: FieldProblem[]; status?: number; notice?: string | undefined };
/** The department page's delivery part: what was posted (when refused) and a connection check's result. */
type DeliveryShown = { delivery?: DeliveryFormValues; check?: ConnectionCheck };
const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });
const QuestionParams = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 100 }),
  question: Type.String({ minLength: 1, maxLength: 100 }),
});
const hide = { hide: true };

/** Admin-only pages for report categories, their questions and the departments reports are forwarded to. */
export function catalogueRoutes(scope: StaffScope): void {
  const civic = scope.civic;
  const db = () => civic.database.db;
  const categoryPath = (code: string) => `/admin/categories/${encodeURIComponent(code)}`;

  const categoryInput = (request: FastifyRequest): CategoryInput => ({
    code: posted(request, "code"),
    name: posted(request, "name"),
    description: posted(request, "description"),
    group: posted(request, "group"),
    keywords: posted(request, "keywords"),
    department: posted(request, "department"),
    order: posted(request, "order"),
    reason: posted(request, "reason"),
  });
  const storedInput = (c: Category): CategoryInput => ({
    code: c.code,
    name: c.name,
    description: c.description,
    group: c.group_name ?? "",
    keywords: keywordText(c.keywords),
    department: c.department_id === null ? "" : String(c.department_id),
    order: String(c.sort_order),
    reason: "",
  });

  async function showCategoryForm(
    request: FastifyRequest,
    reply: FastifyReply,
    existing: Category | null,
    values: CategoryInput,
    o: Shown = {},
  ) {
    const departments = await listDepartments(db());
    const problems = o.problems ?? [];
    const title = existing ? `Category: ${existing.name}` : "Add a category";
    return renderAdminPage(
      request,
      reply,
      title,
      (ctx) => (
        <CategoryFormPage
          csrfToken={ctx.csrfToken}
          existing={existing ? { code: existing.code, name: existing.name, retiredAt: existing.retired_at } : undefined}
          values={values}
          departments={departments}
          problems={problems}
          notice={o.notice}
        />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }

  scope.get("/categories", { schema: { ...hide, querystring: Done } }, async (request, reply) => {
    const categories = await listCategories(db());
    return renderAdminPage(request, reply, "Report categories", () => (
      <CategoriesPage categories={categories} notice={notice(request.query)} />
    ));
  });
  scope.get("/categories/new", { schema: hide }, (request, reply) =>
    showCategoryForm(request, reply, null, storedInputBlank()),
  );
  scope.post("/categories/new", { schema: hide }, async (request, reply) => {
    const input = categoryInput(request);
    try {
      const code = await createCategory(civic, staffViewer(request), input);
      return reply.redirect(`${categoryPath(code)}?done=created`, 303);
    } catch (error) {
      return showCategoryForm(request, reply, null, input, problemsOf(error));
    }
  });
  scope.get(
    "/categories/:code",
    { schema: { ...hide, params: CodeParams, querystring: Done } },
    async (request, reply) => {
      const category = await categoryOr404(db(), request.params.code);
      return showCategoryForm(request, reply, category, storedInput(category), { notice: notice(request.query) });
    },
  );
  scope.post("/categories/:code", { schema: { ...hide, params: CodeParams } }, async (request, reply) => {
    const category = await categoryOr404(db(), request.params.code);
    const input = { ...categoryInput(request), code: category.code };
    try {
      await updateCategory(civic, staffViewer(request), category.code, input);
      return reply.redirect(`${categoryPath(category.code)}?done=saved`, 303);
    } catch (error) {
      return showCategoryForm(request, reply, category, input, problemsOf(error));
    }
  });
  for (const [verb, retired] of [
    ["retire", true],
    ["unretire", false],
  ] as const) {
    scope.post(`/categories/:code/${verb}`, { schema: { ...hide, params: CodeParams } }, async (request, reply) => {
      const category = await categoryOr404(db(), request.params.code);
      try {
        await setRetired(civic, staffViewer(request), category.code, retired, posted(request, "retire_reason", 500));
        return reply.redirect(`${categoryPath(category.code)}?done=${verb}d`, 303);
      } catch (error) {
        return showCategoryForm(request, reply, category, storedInput(category), problemsOf(error));
      }
    });
  }

  // Questions.
  const questionInput = (request: FastifyRequest, code?: string): QuestionInput => ({
    code: code ?? posted(request, "code"),
    description: posted(request, "description"),
    datatype: posted(request, "datatype"),
    required: posted(request, "required") === "yes",
    help: posted(request, "help"),
    values: posted(request, "values", 20000),
    reason: posted(request, "reason"),
  });
  async function showQuestions(
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    values: QuestionInput,
    o: Shown = {},
  ) {
    const category = await categoryOr404(db(), code);
    const problems = o.problems ?? [];
    return renderAdminPage(
      request,
      reply,
      `Questions: ${category.name}`,
      (ctx) => (
        <QuestionsPage
          csrfToken={ctx.csrfToken}
          category={category}
          values={values}
          problems={problems}
          notice={o.notice}
        />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }
  async function showQuestion(
    request: FastifyRequest,
    reply: FastifyReply,
    category: Category,
    values: QuestionInput,
    o: Shown = {},
  ) {
    const problems = o.problems ?? [];
    return renderAdminPage(
      request,
      reply,
      `Edit a question of ${category.name}`,
      (ctx) => <QuestionPage csrfToken={ctx.csrfToken} category={category} values={values} problems={problems} />,
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }
  const questionOr404 = async (code: string, question: string) => {
    const category = await categoryOr404(db(), code);
    const found = categoryAttributes(category).find((d) => d.code === question);
    if (!found) throw new AppError("not_found", "There is no such question.");
    return { category, question: found };
  };

  scope.get(
    "/categories/:code/questions",
    { schema: { ...hide, params: CodeParams, querystring: Done } },
    (request, reply) =>
      showQuestions(request, reply, request.params.code, emptyQuestion, { notice: notice(request.query) }),
  );
  scope.post("/categories/:code/questions", { schema: { ...hide, params: CodeParams } }, async (request, reply) => {
    const input = questionInput(request);
    try {
      await addQuestion(civic, staffViewer(request), request.params.code, input);
      return reply.redirect(`${categoryPath(request.params.code)}/questions?done=added`, 303);
    } catch (error) {
      return showQuestions(request, reply, request.params.code, input, problemsOf(error));
    }
  });
  scope.get(
    "/categories/:code/questions/:question",
    { schema: { ...hide, params: QuestionParams } },
    async (request, reply) => {
      const { category, question } = await questionOr404(request.params.code, request.params.question);
      return showQuestion(request, reply, category, questionValues(question));
    },
  );
  scope.post(
    "/categories/:code/questions/:question",
    { schema: { ...hide, params: QuestionParams } },
    async (request, reply) => {
      const { category, question } = await questionOr404(request.params.code, request.params.question);
      const input = questionInput(request, question.code);
      try {
        await editQuestion(civic, staffViewer(request), category.code, question.code, input);
        return reply.redirect(`${categoryPath(category.code)}/questions?done=saved`, 303);
      } catch (error) {
        return showQuestion(request, reply, category, input, problemsOf(error));
      }
    },
  );
  scope.post(
    "/categories/:code/questions/:question/move",
    { schema: { ...hide, params: QuestionParams } },
    async (request, reply) => {
      const { category, question } = await questionOr404(request.params.code, request.params.question);
      const direction = posted(request, "direction") === "up" ? "up" : "down";
      await moveQuestion(civic, staffViewer(request), category.code, question.code, direction);
      return reply.redirect(`${categoryPath(category.code)}/questions?done=moved`, 303);
    },
  );
  scope.post(
    "/categories/:code/questions/:question/remove",
    { schema: { ...hide, params: QuestionParams } },
    async (request, reply) => {
      const { category, question } = await questionOr404(request.params.code, request.params.question);
      try {
        const reason = posted(request, `reason_${question.code}`, 500);
        await removeQuestion(civic, staffViewer(request), category.code, question.code, reason);
        return reply.redirect(`${categoryPath(category.code)}/questions?done=removed`, 303);
      } catch (error) {
        return showQuestions(request, reply, category.code, emptyQuestion, problemsOf(error));
      }
    },
  );

  // Departments.
  const departmentInput = (request: FastifyRequest): DepartmentInput => ({
    name: posted(request, "name"),
    email: posted(request, "email"),
    reason: posted(request, "reason"),
  });
  async function showDepartments(
    request: FastifyRequest,
    reply: FastifyReply,
    editingId: number | null,
    values: DepartmentInput | null,
    o: Shown & DeliveryShown = {},
  ) {
    const departments = await listDepartments(db());
    const editing = editingId === null ? undefined : departments.find((d) => d.id === editingId);
    if (editingId !== null && !editing) {
      throw new AppError("not_found", "There is no department with this id.");
    }
    const settings = editing ? await deliverySettings(db(), editing.id) : null;
    const problems = o.problems ?? [];
    return renderAdminPage(
      request,
      reply,
      editing ? `Department: ${editing.name}` : "Departments",
      (ctx) => (
        <DepartmentsPage
          csrfToken={ctx.csrfToken}
          departments={departments}
          editing={editing}
          values={values ?? { name: editing?.name ?? "", email: editing?.email ?? "", reason: "" }}
          problems={problems}
          notice={o.notice}
          delivery={
            editing && settings ? (
              <DeliverySection
                departmentId={editing.id}
                email={editing.email}
                csrfToken={ctx.csrfToken}
                settings={settings}
                values={o.delivery ?? deliveryValues(settings)}
                problems={problems}
                check={o.check}
              />
            ) : null
          }
        />
      ),
      { status: o.status, hasErrors: problems.length > 0 },
    );
  }
  scope.get("/departments", { schema: { ...hide, querystring: Done } }, (request, reply) =>
    showDepartments(request, reply, null, null, { notice: notice(request.query) }),
  );
  scope.post("/departments", { schema: hide }, async (request, reply) => {
    const input = departmentInput(request);
    try {
      await createDepartment(civic, staffViewer(request), input);
      return reply.redirect("/admin/departments?done=department", 303);
    } catch (error) {
      return showDepartments(request, reply, null, input, problemsOf(error));
    }
  });
  scope.get("/departments/:id", { schema: { ...hide, params: IdParams, querystring: Done } }, (request, reply) =>
    showDepartments(request, reply, request.params.id, null, { notice: notice(request.query) }),
  );
  scope.post("/departments/:id", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    const input = departmentInput(request);
    try {
      await updateDepartment(civic, staffViewer(request), request.params.id, input);
      return reply.redirect(`/admin/departments/${request.params.id}?done=department`, 303);
    } catch (error) {
      return showDepartments(request, reply, request.params.id, input, problemsOf(error));
    }
  });
  scope.post("/departments/:id/delivery", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    const id = request.params.id;
    const settings = await deliverySettings(db(), id);
    const typed = Object.fromEntries(
      settings.categories.map((c) => [c.code, posted(request, `service:${c.code}`, 200)]),
    );
    const values: DeliveryFormValues = {
      method: posted(request, "method", 20),
      endpoint: posted(request, "endpoint", 600),
      jurisdiction: posted(request, "jurisdiction", 300),
      services: typed,
      attributes: posted(request, "attributes", 20000),
      statuses: posted(request, "statuses", 5000),
    };
    const apiKey = posted(request, "api_key", 600).trim();
    const removeKey = posted(request, "remove_key", 10) === "yes";
    try {
      if (values.method !== "email" && values.method !== "open311") {
        throw new AppError("validation_failed", "Choose how reports are sent.", {
          fields: [{ field: "method", message: "Choose email or Open311." }],
        });
      }
      const wrong = Object.entries(typed).filter(([, theirs]) => theirs.trim() && !MAPPING_CODE.test(theirs.trim()));
      if (wrong.length > 0) {
        throw new AppError("validation_failed", MAPPING_CODE_MESSAGE, {
          fields: wrong.map(([code]) => ({ field: `service-${code}`, message: `${MAPPING_CODE_MESSAGE} (${code})` })),
        });
      }
      // Codes of categories that are no longer this department's keep their mapping (they may come back).
      const shown = new Set(settings.categories.map((c) => c.code));
      const kept = Object.entries(settings.services).filter(([code]) => !shown.has(code));
      const filled = Object.entries(typed)
        .map(([code, theirs]) => [code, theirs.trim()] as const)
        .filter(([, theirs]) => theirs !== "");
      await setDepartmentDelivery(
        db(),
        civic.config,
        id,
        {
          method: values.method,
          endpoint: values.endpoint,
          apiKey: removeKey ? "" : apiKey || undefined,
          jurisdiction: values.jurisdiction,
          services: Object.fromEntries([...kept, ...filled]),
          attributes: parseMapping(values.attributes, "attributes"),
          statuses: parseStatusTable(values.statuses),
        },
        { accountId: staffViewer(request).accountId, at: civic.now() },
      );
      const done = apiKey && !removeKey && values.method === "open311" ? "delivery-key" : "delivery";
      return reply.redirect(`/admin/departments/${id}?done=${done}`, 303);
    } catch (error) {
      return showDepartments(request, reply, id, null, { ...problemsOf(error), delivery: values });
    }
  });
  scope.post("/departments/:id/check", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    const check = await checkDepartmentConnection(db(), civic.config, request.params.id);
    return showDepartments(request, reply, request.params.id, null, { check });
  });
  scope.post("/departments/:id/delete", { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    try {
      await deleteDepartment(civic, staffViewer(request), request.params.id, posted(request, "delete_reason", 500));
      return reply.redirect("/admin/departments?done=deleted", 303);
    } catch (error) {
      return showDepartments(request, reply, request.params.id, null, problemsOf(error));
    }
  });
}

function storedInputBlank(): CategoryInput {
  return { code: "", name: "", description: "", group: "", keywords: "", department: "", order: "0", reason: "" };
}
