import { ErrorSummary } from "../core/web/forms.js";
import type { Category } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { CsrfField } from "../core/web/layout.js";
import { type AttributeDefinition, categoryAttributes } from "../reports/index.js";
import { ActionForm, Field, ReasonField } from "./form-parts.js";
import { DATATYPES, formerQuestions, type QuestionInput, valuesText } from "./questions.js";

const kind = (d: AttributeDefinition) => DATATYPES.find((t) => t.value === d.datatype)?.label ?? d.datatype;

/** The question form's values for an existing question. */
export function questionValues(d: AttributeDefinition): QuestionInput {
  return {
    code: d.code,
    description: d.description,
    datatype: d.datatype,
    required: d.required,
    help: d.datatypeDescription ?? "",
    values: valuesText(d.values),
    reason: "",
  };
}

export const emptyQuestion: QuestionInput = {
  code: "",
  description: "",
  datatype: "string",
  required: false,
  help: "",
  values: "",
  reason: "",
};

/** The fields of a question (add and edit). */
function QuestionFields({
  values,
  problems,
  editing,
}: {
  values: QuestionInput;
  problems: FieldProblem[];
  editing: boolean;
}) {
  return (
    <>
      {editing ? (
        <p>
          Code: <code>{values.code}</code> (it never changes: answers are stored under it)
        </p>
      ) : (
        <Field
          name="code"
          label="Code"
          hint="The Open311 attribute code, e.g. bin_colour. It can never be changed."
          problems={problems}
          control={(p) => <input {...p} required maxLength={40} value={values.code} autocomplete="off" />}
        />
      )}
      <Field
        name="description"
        label="Question"
        problems={problems}
        control={(p) => <input {...p} required maxLength={300} value={values.description} />}
      />
      <Field
        name="datatype"
        label="Kind of answer"
        problems={problems}
        control={(p) => (
          <select {...p}>
            {DATATYPES.map((t) => (
              <option key={t.value} value={t.value} selected={values.datatype === t.value}>
                {t.label} ({t.value})
              </option>
            ))}
          </select>
        )}
      />
      <Field
        name="values"
        label="Answers to choose from (list kinds only)"
        hint="One a line: a short key, a bar, then the answer as people see it, e.g. in_road | In the road."
        problems={problems}
        control={(p) => (
          <textarea {...p} rows={5} maxLength={20000}>
            {values.values}
          </textarea>
        )}
      />
      <Field
        name="help"
        label="Help text (optional)"
        hint="Shown with the question, e.g. what format to use."
        problems={problems}
        control={(p) => <input {...p} maxLength={300} value={values.help} />}
      />
      <p class="field">
        <input type="checkbox" id="admin-required" name="required" value="yes" checked={values.required} />{" "}
        <label for="admin-required">An answer is required</label>
      </p>
      <ReasonField problems={problems} value={values.reason} />
    </>
  );
}

export interface QuestionsProps {
  csrfToken: string;
  category: Category;
  values: QuestionInput;
  problems: FieldProblem[];
  notice?: string;
}

/** /admin/categories/:code/questions: the questions in order (move, edit, remove), the removed ones, and adding. */
export function QuestionsPage({ csrfToken, category, values, problems, notice }: QuestionsProps) {
  const base = `/admin/categories/${encodeURIComponent(category.code)}/questions`;
  const questions = categoryAttributes(category);
  const former = formerQuestions(category);
  const reasonOf = (code: string) => problems.filter((p) => p.field === `reason_${code}`);
  const addProblems = problems.filter((p) => !p.field.startsWith("reason_"));
  return (
    <>
      <h1>Questions: {category.name}</h1>
      <p>
        <a href={`/admin/categories/${encodeURIComponent(category.code)}`}>The category</a> ·{" "}
        <a href="/admin/categories">All categories</a>
      </p>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      {notice ? (
        <p class="notice notice-success" role="status">
          {notice}
        </p>
      ) : null}
      <p>
        The extra questions people answer when they report in this category, in this order, on the report form and in
        the Open311 service definition. Changes show there at once.
      </p>
      {questions.length === 0 ? <p>This category asks no extra questions.</p> : null}
      <ol class="questions">
        {questions.map((q, i) => (
          <li key={q.code}>
            <p>
              <strong>{q.description}</strong> (<code>{q.code}</code>, {kind(q)}
              {q.required ? ", required" : ""})
            </p>
            {q.values ? <p>Answers: {q.values.map((v) => v.name).join(", ")}</p> : null}
            <p>
              <a href={`${base}/${encodeURIComponent(q.code)}`}>
                Edit<span class="visually-hidden"> the question “{q.description}”</span>
              </a>
            </p>
            <div class="actions">
              {i > 0 ? (
                <ActionForm
                  action={`${base}/${encodeURIComponent(q.code)}/move`}
                  csrfToken={csrfToken}
                  extra={<input type="hidden" name="direction" value="up" />}
                >
                  Move up<span class="visually-hidden"> “{q.description}”</span>
                </ActionForm>
              ) : null}
              {i < questions.length - 1 ? (
                <ActionForm
                  action={`${base}/${encodeURIComponent(q.code)}/move`}
                  csrfToken={csrfToken}
                  extra={<input type="hidden" name="direction" value="down" />}
                >
                  Move down<span class="visually-hidden"> “{q.description}”</span>
                </ActionForm>
              ) : null}
              <ActionForm
                action={`${base}/${encodeURIComponent(q.code)}/remove`}
                csrfToken={csrfToken}
                extra={<ReasonField problems={reasonOf(q.code)} name={`reason_${q.code}`} required />}
              >
                Remove<span class="visually-hidden"> the question “{q.description}”</span>
              </ActionForm>
            </div>
          </li>
        ))}
      </ol>
      {former.length > 0 ? (
        <>
          <h2>Removed questions</h2>
          <p>No longer asked. Reports that answered them keep their answers, shown with these labels.</p>
          <ul>
            {former.map((q) => (
              <li key={q.code}>
                {q.description} (<code>{q.code}</code>)
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>Add a question</h2>
      <form method="post" action={base}>
        <CsrfField token={csrfToken} />
        <QuestionFields values={values} problems={addProblems} editing={false} />
        <p>
          <button type="submit">Add the question</button>
        </p>
      </form>
    </>
  );
}

/** /admin/categories/:code/questions/:question: edit one question. */
export function QuestionPage({
  csrfToken,
  category,
  values,
  problems,
}: {
  csrfToken: string;
  category: Category;
  values: QuestionInput;
  problems: FieldProblem[];
}) {
  const base = `/admin/categories/${encodeURIComponent(category.code)}/questions`;
  return (
    <>
      <h1>Edit a question of {category.name}</h1>
      <p>
        <a href={base}>All questions of this category</a>
      </p>
      <ErrorSummary problems={problems} staffPrefix="admin-" />
      <form method="post" action={`${base}/${encodeURIComponent(values.code)}`}>
        <CsrfField token={csrfToken} />
        <QuestionFields values={values} problems={problems} editing />
        <p>
          <button type="submit">Save the question</button>
        </p>
      </form>
    </>
  );
}
