import type { ComponentChildren } from "preact";
import type { FieldProblem } from "../http/errors.js";
import { CsrfField } from "./layout.js";

/**
 * The error summary at the top of a form: each problem (`field` is the id of the input it links to, `message`
 * reads on its own) links to `#<field>`. Staff pages give their inputs ids with a prefix: `staffPrefix` ("admin-",
 * "staff-") links to `#<prefix><field>`, in the staff pages' summary (focusable, its heading without an id).
 */
export function ErrorSummary({ problems, staffPrefix }: { problems: FieldProblem[]; staffPrefix?: string }) {
  if (problems.length === 0) return null;
  const staff = staffPrefix !== undefined;
  return (
    <div
      class="error-summary"
      role="alert"
      aria-labelledby={staff ? undefined : "error-summary-title"}
      tabIndex={staff ? -1 : undefined}
    >
      <h2 id={staff ? undefined : "error-summary-title"}>There is a problem</h2>
      <ul>
        {problems.map((p) => (
          <li key={p.field}>
            <a href={`#${staffPrefix ?? ""}${p.field}`}>{p.message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A field's error message (`id`: what its input's aria-describedby names), or nothing without one. */
export function FieldError({ id, message }: { id: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <span class="field-error" id={id}>
      <span class="visually-hidden">Error: </span>
      {message}
    </span>
  );
}

/** The value of aria-describedby for the ids given (the falsy ones left out), or nothing when none is left. */
export const describedBy = (...ids: (string | false | null | undefined)[]) =>
  ids.filter(Boolean).join(" ") || undefined;

/** The aria-describedby of input `id` with the hint and error message that HintAndError shows. */
export function hintAndErrorIds(id: string, hint: ComponentChildren, error: string | null | undefined) {
  return describedBy(hint ? `${id}-hint` : null, error ? `${id}-error` : null);
}

/** A field's hint (`<id>-hint`) and error message (`<id>-error`), each when there is one. */
export function HintAndError(p: { id: string; hint?: ComponentChildren; error?: string | null }) {
  return (
    <>
      {p.hint ? (
        <span class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </span>
      ) : null}
      <FieldError id={`${p.id}-error`} message={p.error} />
    </>
  );
}

export interface FieldProps {
  id: string;
  name?: string;
  label: string;
  type?: "text" | "email" | "password";
  value?: string;
  hint?: string;
  problems: FieldProblem[];
  autocomplete?: string;
  maxLength?: number;
  inputMode?: "numeric";
  className?: string;
}

/** A labelled text input with its hint and error message, wired for screen readers. */
export function Field(p: FieldProps) {
  const error = p.problems.find((x) => x.field === p.id)?.message;
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      <HintAndError id={p.id} hint={p.hint} error={error} />
      <input
        type={p.type ?? "text"}
        id={p.id}
        name={p.name ?? p.id}
        value={p.type === "password" ? undefined : p.value}
        autocomplete={p.autocomplete}
        maxLength={p.maxLength}
        inputMode={p.inputMode}
        class={p.className}
        aria-describedby={hintAndErrorIds(p.id, p.hint, error)}
        aria-invalid={error ? "true" : undefined}
        spellcheck={p.type === "email" ? false : undefined}
      />
    </div>
  );
}

/** A form posted back to us, carrying the form token. */
export function PostForm({
  action,
  csrfToken,
  children,
  className,
  hidden,
  clearsDevice,
}: {
  action: string;
  csrfToken: string;
  children: ComponentChildren;
  className?: string;
  hidden?: Record<string, string>;
  /** Sending it ends what the person had on this device (sign-out, erasure): the service worker purges its pages. */
  clearsDevice?: boolean;
}) {
  return (
    <form method="post" action={action} class={className} novalidate data-clears-device={clearsDevice ? "" : undefined}>
      <CsrfField token={csrfToken} />
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} key={name} />
      ))}
      {children}
    </form>
  );
}

/** A one-button form (sign out, revoke, withdraw). */
export function ButtonForm(p: {
  action: string;
  csrfToken: string;
  label: ComponentChildren;
  hidden?: Record<string, string>;
  secondary?: boolean;
  clearsDevice?: boolean;
}) {
  return (
    <PostForm
      action={p.action}
      csrfToken={p.csrfToken}
      hidden={p.hidden}
      className="inline-form"
      clearsDevice={p.clearsDevice}
    >
      <button type="submit" class={p.secondary ? "button secondary" : "button"}>
        {p.label}
      </button>
    </PostForm>
  );
}

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

export function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{dateTime.format(new Date(iso))} UTC</time>;
}
