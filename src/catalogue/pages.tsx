import type { ComponentChildren } from "preact";
import { ErrorSummary } from "../core/web/forms.js";
import type { FieldProblem } from "../core/http/errors.js";
import { CsrfField } from "../core/web/layout.js";
import type { CategoryInput, listCategories } from "./categories.js";
import type { DepartmentListing } from "./departments.js";
import { ActionForm, Field, ReasonField } from "./form-parts.js";
import { categoryAttributes } from "../reports/index.js";

type CategoryRow = Awaited<ReturnType<typeof listCategories>>[number];

function Notice({ text }: { text?: string }) {
  return text ? (
    <p class="notice notice-success" role="status">
      {text}
    </p>
  ) : null;
}

/** /admin/categories: every category, active first, then retired. */
export function CategoriesPage({ categories, notice }: { categories: CategoryRow[]; notice?: string }) {
  return (
    <>
      <h1>Report categories</h1>
      <Notice text={notice} />
      <p>
        Categories are what people choose when they report a problem, and the services of the Open311 API. Retired
        categories take no new reports; their reports keep them. Service codes never change and are never reused.
      </p>
      <p>
        <a href="/admin/categories/new">Add a category</a> · <a href="/admin/departments">Departments</a>
      </p>
      <table class="stacked">
        <caption class="visually-hidden">Categories</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Service code</th>
            <th scope="col">Group</th>
            <th scope="col">Forwarded to</th>
            <th scope="col">Questions</th>
            <th scope="col">Reports</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {categories.map((c) => (
            <tr key={c.code}>
              <td data-label="Category">
                <a href={`/admin/categories/${encodeURIComponent(c.code)}`}>{c.name}</a>
              </td>
              <td data-label="Service code">
                <code>{c.code}</code>
              </td>
              <td data-label="Group">{c.group_name ?? ""}</td>
              <td data-label="Forwarded to">{c.department_name ?? "Village volunteers"}</td>
              <td data-label="Questions">
                <a href={`/admin/categories/${encodeURIComponent(c.code)}/questions`}>
                  {categoryAttributes(c).length}
                  <span class="visually-hidden"> questions of “{c.name}”</span>
                </a>
              </td>
              <td data-label="Reports">{c.reports}</td>
              <td data-label="State">{c.retired_at ? `Retired ${c.retired_at.slice(0, 10)}` : "In use"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export interface CategoryFormProps {
  csrfToken: string;
  /** Absent when creating. */
  existing?: { code: string; name: string; retiredAt: string | null };
  values: CategoryInput;
  departments: DepartmentListing[];
  problems: FieldProblem[];
  notice?: string;
}

/** /admin/categories/new and /admin/categories/:code: the category's details, and retiring it. */
export function CategoryFormPage({ csrfToken, existing, values, departments, problems, notice }: CategoryFormProps) {
  const action = existing ? `/admin/categories/${encodeURIComponent(existing.code)}` : "/admin/categories/new";
  const retireProblems = problems.filter((p) => p.field === "retire" || p.field === "retire_reason");
  const formProblems = problems.filter((p) => !retireProblems.includes(p));
  return (
    <>
      <h1>{existing ? `Category: ${existing.name}` : "Add a category"}</h1>
      <p>
        <a href="/admin/categories">All categories</a>
        {existing ? (
          <>
            {" "}
            · <a href={`/admin/categories/${encodeURIComponent(existing.code)}/questions`}>Its questions</a>
          </>
        ) : null}
      </p>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      <Notice text={notice} />
      <form method="post" action={action}>
        <CsrfField token={csrfToken} />
        {existing ? (
          <p>
            Service code: <code>{existing.code}</code> (it never changes)
          </p>
        ) : (
          <Field
            name="code"
            label="Service code"
            hint="Used by the Open311 API and in addresses, e.g. fly_tipping. It can never be changed or reused."
            problems={formProblems}
            control={(p) => <input {...p} required maxLength={40} value={values.code} autocomplete="off" />}
          />
        )}
        <Field
          name="name"
          label="Name"
          problems={formProblems}
          control={(p) => <input {...p} required maxLength={100} value={values.name} />}
        />
        <Field
          name="description"
          label="Description"
          hint="What belongs in this category, shown when people choose one."
          problems={formProblems}
          control={(p) => (
            <textarea {...p} rows={3} maxLength={1000}>
              {values.description}
            </textarea>
          )}
        />
        <Field
          name="group"
          label="Group (optional)"
          hint="Categories with the same group are listed together, e.g. Roads and paths."
          problems={formProblems}
          control={(p) => <input {...p} maxLength={100} value={values.group} />}
        />
        <Field
          name="keywords"
          label="Keywords (optional)"
          hint="Other words people use for it, separated by commas."
          problems={formProblems}
          control={(p) => <input {...p} maxLength={1000} value={values.keywords} />}
        />
        <Field
          name="department"
          label="Forwarded to"
          hint="New reports are forwarded to this department, by email or Open311 as set on its page. Without one, the village volunteers handle them."
          problems={formProblems}
          control={(p) => (
            <select {...p}>
              <option value="">Nobody: the village volunteers</option>
              {departments.map((d) => (
                <option key={d.id} value={String(d.id)} selected={values.department === String(d.id)}>
                  {d.name} ({d.email})
                </option>
              ))}
            </select>
          )}
        />
        <Field
          name="order"
          label="Position in lists"
          hint="A whole number; lower comes first."
          problems={formProblems}
          control={(p) => <input {...p} inputMode="numeric" maxLength={7} value={values.order} />}
        />
        <ReasonField problems={formProblems} value={values.reason} />
        <p>
          <button type="submit">{existing ? "Save the category" : "Add the category"}</button>
        </p>
      </form>
      {existing ? (
        <RetireSection
          code={existing.code}
          retiredAt={existing.retiredAt}
          csrfToken={csrfToken}
          problems={retireProblems}
        />
      ) : null}
    </>
  );
}

function RetireSection(props: { code: string; retiredAt: string | null; csrfToken: string; problems: FieldProblem[] }) {
  const base = `/admin/categories/${encodeURIComponent(props.code)}`;
  return props.retiredAt ? (
    <section aria-labelledby="retire-heading">
      <h2 id="retire-heading">Retired</h2>
      <p>
        Retired on {props.retiredAt.slice(0, 10)}: it takes no new reports and is not offered on the report form or in
        the Open311 services list. Its reports keep it.
      </p>
      <ActionForm
        action={`${base}/unretire`}
        csrfToken={props.csrfToken}
        extra={<ReasonField problems={props.problems} name="retire_reason" required />}
      >
        Bring the category back into use
      </ActionForm>
    </section>
  ) : (
    <section aria-labelledby="retire-heading">
      <h2 id="retire-heading">Retire this category</h2>
      <p>
        People can no longer choose it for new reports (on the web, in saved drafts or through Open311). Existing
        reports keep it and still show it. You can bring it back later.
      </p>
      <ActionForm
        action={`${base}/retire`}
        csrfToken={props.csrfToken}
        extra={<ReasonField problems={props.problems} name="retire_reason" required />}
      >
        Retire the category
      </ActionForm>
    </section>
  );
}

export interface DepartmentsProps {
  csrfToken: string;
  departments: DepartmentListing[];
  /** The department being edited, if any. */
  editing?: DepartmentListing;
  values: { name: string; email: string; reason: string };
  problems: FieldProblem[];
  notice?: string;
  /** How reports reach the department being edited (delivery-pages.tsx). */
  delivery?: ComponentChildren;
}

/** /admin/departments (list and add) and /admin/departments/:id (edit, delivery, delete when unused). */
export function DepartmentsPage(props: DepartmentsProps) {
  const { csrfToken, departments, editing, values, problems, notice } = props;
  const deleteProblems = problems.filter((p) => p.field === "delete" || p.field === "delete_reason");
  const formProblems = problems.filter((p) => !deleteProblems.includes(p));
  return (
    <>
      <h1>{editing ? `Department: ${editing.name}` : "Departments"}</h1>
      <p>
        <a href="/admin/categories">Categories</a>
        {editing ? (
          <>
            {" "}
            · <a href="/admin/departments">All departments</a>
          </>
        ) : null}
      </p>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      <Notice text={notice} />
      {editing ? null : (
        <table class="stacked">
          <caption class="visually-hidden">Departments</caption>
          <thead>
            <tr>
              <th scope="col">Department</th>
              <th scope="col">Reports are forwarded to</th>
              <th scope="col">By</th>
              <th scope="col">Categories</th>
            </tr>
          </thead>
          <tbody>
            {departments.map((d) => (
              <tr key={d.id}>
                <td data-label="Department">
                  <a href={`/admin/departments/${d.id}`}>{d.name}</a>
                </td>
                <td data-label="Reports are forwarded to">{d.email}</td>
                <td data-label="By">{d.delivery === "open311" ? "Open311" : "Email"}</td>
                <td data-label="Categories">{d.categories}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{editing ? "Change the department" : "Add a department"}</h2>
      <form method="post" action={editing ? `/admin/departments/${editing.id}` : "/admin/departments"}>
        <CsrfField token={csrfToken} />
        <Field
          name="name"
          label="Name"
          problems={formProblems}
          control={(p) => <input {...p} required maxLength={120} value={values.name} />}
        />
        <Field
          name="email"
          label="Forwarding email address"
          hint="New reports in its categories are emailed here, unless it receives them by Open311 (below)."
          problems={formProblems}
          control={(p) => <input {...p} type="email" required maxLength={254} value={values.email} />}
        />
        <ReasonField problems={formProblems} value={values.reason} />
        <p>
          <button type="submit">{editing ? "Save the department" : "Add the department"}</button>
        </p>
      </form>
      {props.delivery}
      {editing ? (
        <section aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete this department</h2>
          {editing.categories > 0 ? (
            <p>
              {editing.categories} categor{editing.categories === 1 ? "y uses" : "ies use"} it (retired ones included),
              so it cannot be deleted: move them to another department first.
            </p>
          ) : (
            <ActionForm
              action={`/admin/departments/${editing.id}/delete`}
              csrfToken={csrfToken}
              extra={<ReasonField problems={deleteProblems} name="delete_reason" required />}
            >
              Delete the department
            </ActionForm>
          )}
        </section>
      ) : null}
    </>
  );
}
