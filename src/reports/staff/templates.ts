import type { Kysely } from "kysely";
import type { Civic, Viewer } from "../../core/context.js";
import type { DB, ReportStatus } from "../../core/db/schema.js";
import { AppError, type FieldProblem } from "../../core/http/errors.js";
import { parseId } from "../../core/http/ids.js";
import { recordAudit } from "../../core/staff/audit.js";
import { isReportStatus, MAX_NOTE_LENGTH, STATUS_LABELS } from "../model.js";

/** How long a template's name may be. */
export const MAX_TEMPLATE_TITLE = 80;
/** How many templates there may be (the status form lists the matching ones). */
export const MAX_TEMPLATES = 500;

// Control characters other than tab and line breaks (a one-line title allows none).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ONE_LINE = /[\u0000-\u001f\u007f]/;

/** A response template as the pages show it. */
export interface ResponseTemplate {
  id: number;
  title: string;
  /** null: every category. */
  categoryCode: string | null;
  categoryName: string | null;
  status: ReportStatus;
  body: string;
}

/** What the template form posts (as typed). */
export interface TemplateInput {
  title: string;
  category: string;
  status: string;
  body: string;
  reason: string;
}

function invalid(problems: FieldProblem[]): AppError {
  return new AppError("validation_failed", "The form has problems.", { fields: problems });
}

const selectTemplates = (db: Kysely<DB>) =>
  db
    .selectFrom("response_templates")
    .leftJoin("categories", "categories.code", "response_templates.category_code")
    .select([
      "response_templates.id",
      "response_templates.title",
      "response_templates.category_code",
      "response_templates.status",
      "response_templates.body",
      "categories.name as category_name",
    ]);

type Row = Awaited<ReturnType<ReturnType<typeof selectTemplates>["executeTakeFirstOrThrow"]>>;
const toTemplate = (r: Row): ResponseTemplate => ({
  id: r.id,
  title: r.title,
  categoryCode: r.category_code,
  categoryName: r.category_name,
  status: r.status,
  body: r.body,
});

/** Every template, by category (every category first), status and name. */
export async function listTemplates(db: Kysely<DB>): Promise<ResponseTemplate[]> {
  const rows = await selectTemplates(db)
    .orderBy("categories.name")
    .orderBy("response_templates.status")
    .orderBy("response_templates.title")
    .orderBy("response_templates.id")
    .limit(MAX_TEMPLATES)
    .execute();
  return rows.map(toTemplate);
}

/** One template, or a 404. */
export async function templateOr404(db: Kysely<DB>, id: number): Promise<ResponseTemplate> {
  const row = await selectTemplates(db).where("response_templates.id", "=", id).executeTakeFirst();
  if (!row) throw new AppError("not_found", "There is no response template with this id.");
  return toTemplate(row);
}

/**
 * The templates a report of `categoryCode` may use for one of `statuses` (its next statuses): those of its category
 * and those for every category, by status and name.
 */
export async function templatesFor(
  db: Kysely<DB>,
  categoryCode: string,
  statuses: readonly ReportStatus[],
): Promise<ResponseTemplate[]> {
  if (statuses.length === 0) return [];
  const rows = await selectTemplates(db)
    .where("response_templates.status", "in", [...statuses])
    .where((eb) =>
      eb.or([
        eb("response_templates.category_code", "=", categoryCode),
        eb("response_templates.category_code", "is", null),
      ]),
    )
    .orderBy("response_templates.title")
    .orderBy("response_templates.id")
    .limit(MAX_TEMPLATES)
    .execute();
  const order = (s: ReportStatus) => statuses.indexOf(s);
  return rows.map(toTemplate).sort((a, b) => order(a.status) - order(b.status));
}

async function checkTemplate(db: Kysely<DB>, input: TemplateInput, id: number | null) {
  const problems: FieldProblem[] = [];
  const title = input.title.trim();
  if (!title) problems.push({ field: "title", message: "Enter the template's name." });
  else if (title.length > MAX_TEMPLATE_TITLE)
    problems.push({ field: "title", message: `The name must be at most ${MAX_TEMPLATE_TITLE} characters.` });
  else if (CONTROL_ONE_LINE.test(title))
    problems.push({ field: "title", message: "The name must be one line of plain text." });
  const category = input.category.trim();
  if (category) {
    const known = await db.selectFrom("categories").select("code").where("code", "=", category).executeTakeFirst();
    if (!known) problems.push({ field: "category", message: "Choose one of the listed categories." });
  }
  const status = input.status.trim();
  if (!isReportStatus(status)) problems.push({ field: "status", message: "Choose the status the text is for." });
  const body = input.body.replace(/\r\n?/g, "\n").trim();
  if (!body) problems.push({ field: "body", message: "Enter the public update text." });
  else if (body.length > MAX_NOTE_LENGTH)
    problems.push({ field: "body", message: `The text must be at most ${MAX_NOTE_LENGTH} characters.` });
  else if (CONTROL.test(body))
    problems.push({ field: "body", message: "The text must be plain text (no control characters)." });
  if (input.reason.length > 500 || CONTROL_ONE_LINE.test(input.reason))
    problems.push({ field: "reason", message: "The reason must be one line of at most 500 characters." });
  if (problems.length === 0) {
    // One name per category and status: staff choose by it (and a replayed "add" is not a second copy).
    const same = await db
      .selectFrom("response_templates")
      .select("id")
      .where("title", "=", title)
      .where("status", "=", status as ReportStatus)
      .where((eb) => (category ? eb("category_code", "=", category) : eb("category_code", "is", null)))
      .executeTakeFirst();
    if (same && same.id !== id) {
      problems.push({
        field: "title",
        message: "There is already a template with this name for this category and status.",
      });
    }
  }
  if (problems.length > 0) throw invalid(problems);
  return { title, category_code: category || null, status: status as ReportStatus, body };
}

/** A new template. Audited. */
export async function createTemplate(civic: Civic, viewer: Viewer, input: TemplateInput): Promise<number> {
  const now = civic.now().toISOString();
  return civic.database.db.transaction().execute(async (tx) => {
    const clean = await checkTemplate(tx, input, null);
    const count = await tx
      .selectFrom("response_templates")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_TEMPLATES) {
      throw invalid([{ field: "title", message: `There are already ${MAX_TEMPLATES} templates: remove one first.` }]);
    }
    const { id } = await tx
      .insertInto("response_templates")
      .values({ ...clean, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "response_template.create",
      itemType: "response_template",
      itemId: id,
      reason: input.reason.trim() || null,
      details: { title: clean.title, category: clean.category_code ?? "every category", status: clean.status },
      at: now,
    });
    return id;
  });
}

/** Changes a template. Audited, with what it was. */
export async function updateTemplate(civic: Civic, viewer: Viewer, id: number, input: TemplateInput): Promise<void> {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const before = await templateOr404(tx, id);
    const clean = await checkTemplate(tx, input, id);
    await tx
      .updateTable("response_templates")
      .set({ ...clean, updated_at: now })
      .where("id", "=", id)
      .execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "response_template.update",
      itemType: "response_template",
      itemId: id,
      reason: input.reason.trim() || null,
      details: {
        from: { title: before.title, category: before.categoryCode ?? "every category", status: before.status },
        to: { title: clean.title, category: clean.category_code ?? "every category", status: clean.status },
        text_changed: before.body !== clean.body,
      },
      at: now,
    });
  });
}

/** Removes a template (updates already published keep their text). Needs a reason; audited. */
export async function deleteTemplate(civic: Civic, viewer: Viewer, id: number, reason: string): Promise<void> {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const before = await templateOr404(tx, id);
    const why = reason.trim();
    if (!why) throw invalid([{ field: "delete_reason", message: "Give a reason: it goes in the audit log." }]);
    if (why.length > 500 || CONTROL_ONE_LINE.test(why)) {
      throw invalid([{ field: "delete_reason", message: "The reason must be one line of at most 500 characters." }]);
    }
    await tx.deleteFrom("response_templates").where("id", "=", id).execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "response_template.delete",
      itemType: "response_template",
      itemId: id,
      reason: why,
      details: { title: before.title, category: before.categoryCode ?? "every category", status: before.status },
      at: now,
    });
  });
}

/**
 * The public update text of a status change posted from the staff view: the text typed when there is any (a
 * template's text filled in by the page's script and edited is just typed text); otherwise the chosen template's
 * text, when the template is one of this report's category and for the chosen status; otherwise "" (the status
 * change then asks for the text). A template that does not fit is a validation error naming the field.
 */
export async function updateTextOf(
  db: Kysely<DB>,
  reference: string,
  posted: { note: string; template: string; status: string },
): Promise<string> {
  if (posted.note.trim() !== "" || posted.template.trim() === "") return posted.note;
  const id = parseId(posted.template.trim());
  const fail = (message: string) => invalid([{ field: "template", message }]);
  if (id === null) throw fail("Choose one of the listed templates, or write the text.");
  const report = await db
    .selectFrom("reports")
    .select("category_code")
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (!report) return posted.note;
  const template = await selectTemplates(db).where("response_templates.id", "=", id).executeTakeFirst();
  if (!template || (template.category_code !== null && template.category_code !== report.category_code)) {
    throw fail("That template is not one of this report's: choose one of the listed templates, or write the text.");
  }
  if (template.status !== posted.status) {
    throw fail(
      `The template “${template.title}” is for the status “${STATUS_LABELS[template.status]}”: choose that status, another template, or write the text.`,
    );
  }
  return template.body;
}
