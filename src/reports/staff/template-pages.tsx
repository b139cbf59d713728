import type { ComponentChildren } from "preact";
import type { FieldProblem } from "../../core/http/errors.js";
import { ErrorSummary, HintAndError, hintAndErrorIds } from "../../core/web/forms.js";
import { CsrfField } from "../../core/web/layout.js";
import { MAX_NOTE_LENGTH, REPORT_STATUSES, STATUS_LABELS } from "../model.js";
import { MAX_TEMPLATE_TITLE, type ResponseTemplate, type TemplateInput } from "./templates.js";

export const TEMPLATES_PATH = "/admin/response-templates";

/** One labelled control (ids `admin-<name>`, so the error summary's links land on it). */
function Field(p: {
  name: string;
  label: string;
  hint?: ComponentChildren;
  problems: FieldProblem[];
  control: (a: { id: string; name: string; "aria-describedby"?: string; "aria-invalid"?: "true" }) => ComponentChildren;
}) {
  const id = `admin-${p.name}`;
  const error = p.problems.find((x) => x.field === p.name)?.message ?? null;
  return (
    <p class="field">
      <label for={id}>{p.label}</label>
      <HintAndError id={id} hint={p.hint} error={error} />
      {p.control({
        id,
        name: p.name,
        "aria-describedby": hintAndErrorIds(id, p.hint, error),
        ...(error ? { "aria-invalid": "true" as const } : {}),
      })}
    </p>
  );
}

export interface TemplatesPageProps {
  csrfToken: string;
  templates: ResponseTemplate[];
  /** The template being edited, if any. */
  editing?: ResponseTemplate;
  categories: { code: string; name: string }[];
  values: TemplateInput;
  problems: FieldProblem[];
  notice?: string;
}

/** /admin/response-templates (list and add) and /admin/response-templates/:id (change, remove). */
export function TemplatesPage({
  csrfToken,
  templates,
  editing,
  categories,
  values,
  problems,
  notice,
}: TemplatesPageProps) {
  const deleteProblems = problems.filter((p) => p.field === "delete_reason");
  const formProblems = problems.filter((p) => !deleteProblems.includes(p));
  const categoryChoices =
    editing?.categoryCode && !categories.some((c) => c.code === editing.categoryCode)
      ? [
          ...categories,
          { code: editing.categoryCode, name: `${editing.categoryName ?? editing.categoryCode} (retired)` },
        ]
      : categories;
  return (
    <>
      <h1>{editing ? `Response template: ${editing.title}` : "Response templates"}</h1>
      {editing ? (
        <p>
          <a href={TEMPLATES_PATH}>All response templates</a>
        </p>
      ) : (
        <p>
          Text that staff can start a public status update from. The status form of a report offers the templates of its
          category and of every category, for the status chosen; staff can change the text before publishing it.
        </p>
      )}
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      {notice ? (
        <p class="notice notice-success" role="status">
          {notice}
        </p>
      ) : null}
      {editing ? null : templates.length === 0 ? (
        <p>There are no templates yet.</p>
      ) : (
        <table class="data-table stacked">
          <caption class="visually-hidden">Response templates</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Category</th>
              <th scope="col">Status</th>
              <th scope="col">Text</th>
            </tr>
          </thead>
          <tbody>
            {templates.map((t) => (
              <tr key={t.id}>
                <td data-label="Name">
                  <a href={`${TEMPLATES_PATH}/${t.id}`}>{t.title}</a>
                </td>
                <td data-label="Category">
                  {t.categoryCode === null ? "Every category" : (t.categoryName ?? t.categoryCode)}
                </td>
                <td data-label="Status">{STATUS_LABELS[t.status]}</td>
                <td data-label="Text">{t.body.length > 160 ? `${t.body.slice(0, 157)}…` : t.body}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{editing ? "Change the template" : "Add a template"}</h2>
      <form method="post" action={editing ? `${TEMPLATES_PATH}/${editing.id}` : TEMPLATES_PATH}>
        <CsrfField token={csrfToken} />
        <Field
          name="title"
          label="Name"
          hint="Staff choose the template by this name; it is not published."
          problems={formProblems}
          control={(a) => <input {...a} required maxLength={MAX_TEMPLATE_TITLE} value={values.title} />}
        />
        <Field
          name="category"
          label="Category"
          problems={formProblems}
          control={(a) => (
            <select {...a}>
              <option value="">Every category</option>
              {categoryChoices.map((c) => (
                <option value={c.code} selected={c.code === values.category} key={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
        />
        <Field
          name="status"
          label="For the status"
          problems={formProblems}
          control={(a) => (
            <select {...a}>
              {REPORT_STATUSES.map((s) => (
                <option value={s} selected={s === values.status} key={s}>
                  {STATUS_LABELS[s]}
                </option>
              ))}
            </select>
          )}
        />
        <Field
          name="body"
          label="Public update text"
          hint={`Up to ${MAX_NOTE_LENGTH} characters. Published on the report page, in its feeds and the API, and emailed to the reporter and followers.`}
          problems={formProblems}
          control={(a) => (
            <textarea {...a} rows={5} required maxLength={MAX_NOTE_LENGTH}>
              {values.body}
            </textarea>
          )}
        />
        <Field
          name="reason"
          label="Reason (for the audit log, optional)"
          problems={formProblems}
          control={(a) => <input {...a} maxLength={500} value={values.reason} />}
        />
        <p>
          <button type="submit">{editing ? "Save the template" : "Add the template"}</button>
        </p>
      </form>
      {editing ? (
        <section aria-labelledby="delete-heading">
          <h2 id="delete-heading">Remove this template</h2>
          <p>Updates already published with its text keep it.</p>
          <form method="post" action={`${TEMPLATES_PATH}/${editing.id}/delete`}>
            <CsrfField token={csrfToken} />
            <Field
              name="delete_reason"
              label="Reason (for the audit log)"
              problems={deleteProblems}
              control={(a) => <input {...a} required maxLength={500} value="" />}
            />
            <p>
              <button type="submit">Remove the template</button>
            </p>
          </form>
        </section>
      ) : null}
    </>
  );
}
