import type { ComponentChildren } from "preact";
import { CsrfField } from "./layout.js";

/** A problem with a field: `field` is the id of the input it links to; `message` reads on its own. */
export interface Problem {
  field: string;
  message: string;
}

export function ErrorSummary({ problems }: { problems: Problem[] }) {
  if (problems.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">There is a problem</h2>
      <ul>
        {problems.map((p) => (
          <li key={p.field}>
            <a href={`#${p.field}`}>{p.message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export interface FieldProps {
  id: string;
  name?: string;
  label: string;
  type?: "text" | "email" | "password";
  value?: string;
  hint?: string;
  problems: Problem[];
  autocomplete?: string;
  maxLength?: number;
  inputMode?: "numeric";
  className?: string;
}

/** A labelled text input with its hint and error message, wired for screen readers. */
export function Field(p: FieldProps) {
  const error = p.problems.find((x) => x.field === p.id)?.message;
  const describedBy = [p.hint ? `${p.id}-hint` : null, error ? `${p.id}-error` : null].filter(Boolean).join(" ");
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      {p.hint ? (
        <span class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </span>
      ) : null}
      {error ? (
        <span class="field-error" id={`${p.id}-error`}>
          <span class="visually-hidden">Error: </span>
          {error}
        </span>
      ) : null}
      <input
        type={p.type ?? "text"}
        id={p.id}
        name={p.name ?? p.id}
        value={p.type === "password" ? undefined : p.value}
        autocomplete={p.autocomplete}
        maxLength={p.maxLength}
        inputMode={p.inputMode}
        class={p.className}
        aria-describedby={describedBy || undefined}
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
