import { ErrorSummary, Field, FieldError } from "../../core/web/forms.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { Honeypot } from "../../core/web/components.js";
import { CsrfField } from "../../core/web/layout.js";
import { ALERT_RADII, radiusInWords } from "../alerts.js";

/** What the alerts form shows: the choices offered and what was typed or chosen. */
export interface AlertFormProps {
  csrfToken: string;
  /** The signed-in person's address (no email field then), or null. */
  /**
   * Whether alerts go to the signed-in account's own address. The address itself is not shown: this page reflects
   * what it is asked (a place, a category), so it must not also carry the viewer's address (length oracle).
   */
  toAccount: boolean;
  placeNames: string[];
  streets: { id: string; name: string }[];
  categories: { code: string; name: string }[];
  values: Record<string, string>;
  problems: FieldProblem[];
}

const SCOPES = [
  { value: "near", label: "Near a place" },
  { value: "street", label: "On a street" },
  { value: "category", label: "In a category" },
  { value: "village", label: "Anywhere in the village" },
] as const;

const error = (problems: FieldProblem[], id: string) => problems.find((p) => p.field === id)?.message;

function Choice(p: { name: string; value: string; label: string; checked: boolean }) {
  const id = `alert-${p.name}-${p.value}`;
  return (
    <div class="choice">
      <input type="radio" name={p.name} id={id} value={p.value} checked={p.checked} />
      <label for={id}>{p.label}</label>
    </div>
  );
}

function Select(p: {
  id: string;
  name: string;
  label: string;
  options: { value: string; label: string }[];
  value: string;
  problems: FieldProblem[];
  empty?: string;
}) {
  const message = error(p.problems, p.id);
  return (
    <div class={`field${message ? " has-error" : ""}`}>
      <label for={p.id}>{p.label}</label>
      <FieldError id={`${p.id}-error`} message={message} />
      <select
        id={p.id}
        name={p.name}
        aria-describedby={message ? `${p.id}-error` : undefined}
        aria-invalid={message ? "true" : undefined}
      >
        {p.empty !== undefined ? <option value="">{p.empty}</option> : null}
        {p.options.map((o) => (
          <option value={o.value} selected={o.value === p.value} key={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * "Email me about new reports": which reports (near a place, on a street, in a category, anywhere), how often, and
 * the address (the account's when signed in). A plain form: works without JavaScript.
 */
export function AlertForm(p: AlertFormProps) {
  const v = p.values;
  const scope = v.scope ?? "near";
  const frequency = v.frequency ?? "immediate";
  const placeError = error(p.problems, "alert-place");
  return (
    <>
      <ErrorSummary problems={p.problems} />
      <form method="post" action="/alerts" novalidate>
        <CsrfField token={p.csrfToken} />
        <fieldset>
          <legend>
            <h2 class="legend-heading">Which new reports?</h2>
          </legend>
          <FieldError id="alert-scope-error" message={error(p.problems, "alert-scope")} />
          {SCOPES.map((s) => (
            <Choice name="scope" value={s.value} label={s.label} checked={scope === s.value} key={s.value} />
          ))}
          <div class={`field${placeError ? " has-error" : ""}`}>
            <label for="alert-place">Place (for “Near a place”)</label>
            <span class="hint" id="alert-place-hint">
              A street or landmark, like “War memorial”
            </span>
            <FieldError id="alert-place-error" message={placeError} />
            <input
              id="alert-place"
              name="place"
              type="text"
              value={v.place ?? ""}
              maxLength={100}
              autocomplete="off"
              list={p.placeNames.length > 0 ? "alert-place-names" : undefined}
              aria-describedby={placeError ? "alert-place-hint alert-place-error" : "alert-place-hint"}
              aria-invalid={placeError ? "true" : undefined}
            />
            {p.placeNames.length > 0 ? (
              <datalist id="alert-place-names">
                {p.placeNames.map((n) => (
                  <option value={n} key={n} />
                ))}
              </datalist>
            ) : null}
          </div>
          <Select
            id="alert-radius"
            name="radius"
            label="Distance from the place"
            options={ALERT_RADII.map((r) => ({ value: String(r), label: `Within ${radiusInWords(r)}` }))}
            value={v.radius ?? "500"}
            problems={p.problems}
          />
          <Select
            id="alert-street"
            name="street"
            label="Street (for “On a street”)"
            options={p.streets.map((s) => ({ value: s.id, label: s.name }))}
            value={v.street ?? ""}
            problems={p.problems}
            empty="Choose a street"
          />
          <Select
            id="alert-category"
            name="category"
            label="Category (for “In a category”)"
            options={p.categories.map((c) => ({ value: c.code, label: c.name }))}
            value={v.category ?? ""}
            problems={p.problems}
            empty="Choose a category"
          />
        </fieldset>
        <fieldset>
          <legend>
            <h2 class="legend-heading">How often?</h2>
          </legend>
          <FieldError id="alert-frequency-error" message={error(p.problems, "alert-frequency")} />
          <Choice
            name="frequency"
            value="immediate"
            label="One email for each new report"
            checked={frequency !== "daily"}
          />
          <Choice name="frequency" value="daily" label="One email a day listing them" checked={frequency === "daily"} />
        </fieldset>
        {p.toAccount ? (
          <p>Alerts go to your account’s email address (shown on your account page).</p>
        ) : (
          <Field
            id="alert-email"
            name="email"
            type="email"
            label="Your email address"
            hint="We send a link to confirm first. Your address is never shown, and every email has a link to stop the alert."
            value={v.email ?? ""}
            problems={p.problems}
            autocomplete="email"
            maxLength={254}
          />
        )}
        <Honeypot />
        <p>
          <button type="submit">Email me about new reports</button>
        </p>
      </form>
    </>
  );
}
