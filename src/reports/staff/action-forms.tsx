import type { FieldProblem } from "../../core/http/errors.js";
import { FieldError } from "../../core/web/forms.js";
import { CsrfField } from "../../core/web/layout.js";
import { STATUS_LABELS } from "../model.js";
import type { ResponseTemplate } from "./templates.js";
import type { StaffReport } from "./triage.js";

export interface ActionChoices {
  categories: { code: string; name: string; department_name: string | null }[];
  staff: { id: string; name: string | null; email: string }[];
}

export function ErrorFor({ problems, field }: { problems: FieldProblem[]; field: string }) {
  return <FieldError id={`staff-${field}-error`} message={problems.find((x) => x.field === field)?.message} />;
}

/** aria attributes of a field with an optional hint and a possible error. */
function described(problems: FieldProblem[], field: string, hint = false) {
  const invalid = problems.some((p) => p.field === field);
  const ids = [hint ? `staff-${field}-hint` : null, invalid ? `staff-${field}-error` : null].filter(Boolean);
  return {
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-describedby": ids.length > 0 ? ids.join(" ") : undefined,
  };
}

/** An optional one-line reason for the audit log; posted as `field` with "_" for "-". */
function ReasonField(p: {
  field: string;
  label: string;
  problems: FieldProblem[];
  values: Record<string, string | undefined>;
}) {
  const name = p.field.replace(/-/g, "_");
  return (
    <p>
      <label for={`staff-${p.field}`}>{p.label}</label>
      <ErrorFor problems={p.problems} field={p.field} />
      <input
        id={`staff-${p.field}`}
        name={name}
        maxLength={500}
        value={p.values[name] ?? ""}
        {...described(p.problems, p.field)}
      />
    </p>
  );
}

/**
 * The status change with its public update text. The response templates of the report's category that fit one of
 * its next statuses are offered as choices: without JavaScript, a chosen template's text is published when the text
 * box is left empty (routes.tsx asks templates.ts, updateTextOf); with it, response-templates.js fills the text box
 * with the chosen template's text, still editable, and shows only the templates for the chosen status.
 */
export function StatusForm(p: {
  r: StaffReport;
  csrfToken: string;
  problems: FieldProblem[];
  values: Record<string, string | undefined>;
  templates: ResponseTemplate[];
}) {
  const { r, problems, values, templates } = p;
  if (r.next.length === 0) {
    return (
      <>
        <h2>Change the status</h2>
        <p>This status cannot change.</p>
      </>
    );
  }
  const chosen = values.template ?? "";
  const templateInvalid = problems.some((x) => x.field === "template");
  return (
    <>
      <h2>Change the status</h2>
      <form method="post" action={`/admin/reports/${r.reference}/status`} class="status-form">
        <CsrfField token={p.csrfToken} />
        <input type="hidden" name="expected" value={r.status} />
        <p>
          <label for="staff-status">New status</label>
          <ErrorFor problems={problems} field="status" />
          <select id="staff-status" name="status" {...described(problems, "status")}>
            {r.next.map((s) => (
              <option value={s} selected={s === values.status} key={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </p>
        {templates.length > 0 ? (
          <fieldset class="response-templates" aria-describedby="staff-template-hint">
            <legend>Start from a response template (optional)</legend>
            <span class="hint" id="staff-template-hint">
              Each template says the status it is for. If you leave the public update text empty, the chosen template’s
              text is published; text you write is published instead.
            </span>
            <ErrorFor problems={problems} field="template" />
            <p class="choice">
              <input
                type="radio"
                id="staff-template"
                name="template"
                value=""
                checked={chosen === ""}
                aria-invalid={templateInvalid ? "true" : undefined}
              />
              <label for="staff-template">No template: I write the text</label>
            </p>
            {templates.map((t) => (
              <div class="choice" data-status={t.status} key={t.id}>
                <input
                  type="radio"
                  id={`staff-template-${t.id}`}
                  name="template"
                  value={String(t.id)}
                  checked={chosen === String(t.id)}
                  data-text={t.body}
                  aria-describedby={`staff-template-${t.id}-text`}
                />
                <span>
                  <label for={`staff-template-${t.id}`}>
                    {t.title} (for “{STATUS_LABELS[t.status]}”)
                  </label>
                  <span class="hint template-text" id={`staff-template-${t.id}-text`}>
                    {t.body}
                  </span>
                </span>
              </div>
            ))}
            <p class="visually-hidden" role="status" id="staff-template-status"></p>
          </fieldset>
        ) : null}
        <p>
          <label for="staff-note">Public update text</label>
          <span class="hint" id="staff-note-hint">
            Shown on the public report page, in the feeds and the API, and emailed to the reporter and followers.
            {templates.length > 0 ? " Leave it empty to publish the chosen template’s text." : ""}
          </span>
          <ErrorFor problems={problems} field="note" />
          <textarea
            id="staff-note"
            name="note"
            rows={4}
            required={templates.length === 0}
            {...described(problems, "note", true)}
          >
            {values.note ?? ""}
          </textarea>
        </p>
        <p>
          <button type="submit">Change status and publish the update</button>
        </p>
      </form>
    </>
  );
}

interface FormsProps {
  r: StaffReport;
  csrfToken: string;
  problems: FieldProblem[];
  values: Record<string, string | undefined>;
  choices: ActionChoices;
}

/** The staff view's forms for category, forwarding, duplicates and assignment. */
export function ActionForms({ r, csrfToken, problems, values, choices }: FormsProps) {
  const action = (name: string) => `/admin/reports/${r.reference}/${name}`;
  return (
    <>
      <h2>Assign</h2>
      <form method="post" action={action("assign")}>
        <CsrfField token={csrfToken} />
        <input type="hidden" name="expected" value={r.assignedToId ?? ""} />
        <p>
          <label for="staff-assignee">Assigned to</label>
          <ErrorFor problems={problems} field="assignee" />
          <select id="staff-assignee" name="assignee" {...described(problems, "assignee")}>
            <option value="">Nobody</option>
            {choices.staff.map((s) => (
              <option value={s.id} selected={s.id === (values.assignee ?? r.assignedToId)} key={s.id}>
                {s.name ? `${s.name} (${s.email})` : s.email}
              </option>
            ))}
          </select>
        </p>
        <p>
          <button type="submit">Save the assignment</button>
        </p>
      </form>

      <h2>Category and forwarding</h2>
      <form method="post" action={action("category")}>
        <CsrfField token={csrfToken} />
        <input type="hidden" name="expected" value={r.categoryCode} />
        <p>
          <label for="staff-category">Category</label>
          <span class="hint" id="staff-category-hint">
            Changing it forwards the report to the new category's council department, if it has one.
          </span>
          <ErrorFor problems={problems} field="category" />
          <select id="staff-category" name="category" {...described(problems, "category", true)}>
            {choices.categories.map((c) => (
              <option value={c.code} selected={c.code === (values.category ?? r.categoryCode)} key={c.code}>
                {c.name}
                {c.department_name ? ` (to ${c.department_name})` : ""}
              </option>
            ))}
          </select>
        </p>
        <ReasonField
          field="category-reason"
          label="Reason (optional, for the audit log)"
          problems={problems}
          values={values}
        />
        <p>
          <button type="submit">Change the category</button>
        </p>
      </form>
      <form method="post" action={action("forward")}>
        <CsrfField token={csrfToken} />
        <ReasonField
          field="forward-reason"
          label="Reason for forwarding again (optional, for the audit log)"
          problems={problems}
          values={values}
        />
        <p>
          <button type="submit">Forward again to the department</button>
        </p>
      </form>

      <h2>Mark as a duplicate</h2>
      {r.next.includes("duplicate") ? (
        <form method="post" action={action("duplicate")}>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="expected" value={r.status} />
          <p>
            <label for="staff-original">Reference of the original report</label>
            <span class="hint" id="staff-original-hint">
              This report is closed as a duplicate, and both reports link to each other.
            </span>
            <ErrorFor problems={problems} field="original" />
            <input
              id="staff-original"
              name="original"
              maxLength={40}
              autocomplete="off"
              required
              value={values.original ?? ""}
              {...described(problems, "original", true)}
            />
          </p>
          <p>
            <label for="staff-duplicate-note">Public update text (optional; “Duplicate of report …” is added)</label>
            <ErrorFor problems={problems} field="duplicate-note" />
            <textarea
              id="staff-duplicate-note"
              name="duplicate_note"
              rows={2}
              {...described(problems, "duplicate-note")}
            >
              {values.duplicate_note ?? ""}
            </textarea>
          </p>
          <p>
            <button type="submit">Mark as a duplicate</button>
          </p>
        </form>
      ) : (
        <p>A report with this status cannot be marked as a duplicate; reopen it first.</p>
      )}
    </>
  );
}
