import type { FieldProblem } from "../http/errors.js";
import { HintAndError, hintAndErrorIds } from "./forms.js";

/** The honeypot of public forms: hidden from people and assistive technology, filled in by naive bots. */
export function Honeypot({ id = "website" }: { id?: string } = {}) {
  return (
    <div class="hp" aria-hidden="true">
      <label for={id}>Leave this field empty</label>
      <input type="text" id={id} name="website" tabIndex={-1} autocomplete="off" value="" />
    </div>
  );
}

function errorOf(problems: FieldProblem[], id: string) {
  return problems.find((x) => x.field === id)?.message;
}

/** A labelled multi-line text field with hint and error, keeping what was typed. */
export function TextArea(p: {
  id: string;
  label: string;
  value: string;
  problems: FieldProblem[];
  hint?: string;
  rows?: number;
  maxLength?: number;
}) {
  const error = errorOf(p.problems, p.id);
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      <HintAndError id={p.id} hint={p.hint} error={error} />
      <textarea
        id={p.id}
        name={p.id}
        rows={p.rows ?? 6}
        maxLength={p.maxLength}
        aria-describedby={hintAndErrorIds(p.id, p.hint, error)}
        aria-invalid={error ? "true" : undefined}
      >
        {p.value}
      </textarea>
    </div>
  );
}

/** A labelled select with an optional empty choice. */
export function Select(p: {
  id: string;
  label: string;
  value: string;
  options: { value: string; label: string }[];
  problems: FieldProblem[];
  hint?: string;
  empty?: string;
}) {
  const error = errorOf(p.problems, p.id);
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      <HintAndError id={p.id} hint={p.hint} error={error} />
      <select
        id={p.id}
        name={p.id}
        aria-describedby={hintAndErrorIds(p.id, p.hint, error)}
        aria-invalid={error ? "true" : undefined}
      >
        {p.empty !== undefined ? <option value="">{p.empty}</option> : null}
        {p.options.map((o) => (
          <option key={o.value} value={o.value} selected={o.value === p.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A single checkbox with its label after it. */
export function Checkbox(p: { id: string; label: string; checked: boolean; problems: FieldProblem[]; hint?: string }) {
  const error = errorOf(p.problems, p.id);
  return (
    <div class={`field checkbox${error ? " has-error" : ""}`}>
      <HintAndError id={p.id} hint={p.hint} error={error} />
      <input
        type="checkbox"
        id={p.id}
        name={p.id}
        value="yes"
        checked={p.checked}
        aria-describedby={hintAndErrorIds(p.id, p.hint, error)}
        aria-invalid={error ? "true" : undefined}
      />{" "}
      <label for={p.id}>{p.label}</label>
    </div>
  );
}

/** Rendered Markdown: HTML that markdown.ts made safe (no raw HTML, checked links, no images). */
export function Prose({ html }: { html: string }) {
  return <div class="prose" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** A problem with the whole form (spam checks, limits), linked from the error summary by id "form". */
export function FormProblem({ problems }: { problems: FieldProblem[] }) {
  const message = problems.find((x) => x.field === "form")?.message;
  return message ? (
    <p id="form" class="field-error">
      {message}
    </p>
  ) : null;
}
