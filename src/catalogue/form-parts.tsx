import type { ComponentChildren } from "preact";
import type { FieldProblem } from "../core/http/errors.js";
import { CsrfField } from "../core/web/layout.js";
import { HintAndError, hintAndErrorIds } from "../core/web/forms.js";

/** The control's accessibility attributes for a field: its id, hint and error wiring. */
export interface ControlProps {
  id: string;
  name: string;
  "aria-describedby"?: string;
  "aria-invalid"?: "true";
}

/**
 * One labelled form field with an optional hint and its error message (ids `admin-<name>`, so the error summary's
 * links land on it). `control` renders the input with the wiring it is given.
 */
export function Field({
  name,
  label,
  hint,
  problems,
  control,
}: {
  name: string;
  label: string;
  hint?: ComponentChildren;
  problems: FieldProblem[];
  control: (props: ControlProps) => ComponentChildren;
}) {
  const id = `admin-${name}`;
  const message = problems.find((p) => p.field === name)?.message ?? null;
  return (
    <p class="field">
      <label for={id}>{label}</label>
      <HintAndError id={id} hint={hint} error={message} />
      {control({
        id,
        name,
        "aria-describedby": hintAndErrorIds(id, hint, message),
        ...(message ? { "aria-invalid": "true" as const } : {}),
      })}
    </p>
  );
}

/** The audit log's reason field (required for the actions that take something away). */
export function ReasonField({
  problems,
  value,
  required = false,
  name = "reason",
}: {
  problems: FieldProblem[];
  value?: string;
  required?: boolean;
  name?: string;
}) {
  return (
    <Field
      name={name}
      label={required ? "Reason (for the audit log)" : "Reason (for the audit log, optional)"}
      problems={problems}
      control={(p) => <input {...p} maxLength={500} required={required} value={value ?? ""} />}
    />
  );
}

/** A small form with one button (and a required reason when `reason` is set): retire, remove, move. */
export function ActionForm({
  action,
  csrfToken,
  children,
  extra,
}: {
  action: string;
  csrfToken: string;
  children: ComponentChildren;
  extra?: ComponentChildren;
}) {
  return (
    <form method="post" action={action} class="inline-action">
      <CsrfField token={csrfToken} />
      {extra}
      <button type="submit">{children}</button>
    </form>
  );
}
