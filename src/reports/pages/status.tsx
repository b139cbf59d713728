import type { PublicReport } from "../repository.js";
import { describedBy, ErrorSummary, FieldError } from "../../core/web/forms.js";
import { formatDate } from "./common.js";

export type StatusResult =
  | { kind: "none" }
  | { kind: "found"; report: PublicReport }
  | { kind: "unknown"; reference: string }
  | { kind: "invalid"; reference: string }
  | { kind: "not-public"; reference: string };

/** /status: look a report up by its reference number. */
export function StatusLookup({ value, result }: { value: string; result: StatusResult }) {
  const problem =
    result.kind === "unknown"
      ? `We could not find a report with the reference ${result.reference}. Check it against your confirmation email: references look like K7QM-3X9P.`
      : result.kind === "invalid"
        ? "Enter the reference number from your confirmation, for example K7QM-3X9P."
        : null;
  return (
    <>
      <ErrorSummary problems={problem ? [{ field: "reference", message: problem }] : []} />
      <h1>Check a report's status</h1>
      <form method="get" action="/status">
        <div class={`field${problem ? " has-error" : ""}`}>
          <label for="reference">Reference number</label>
          <span class="hint" id="reference-hint">
            It is on the confirmation page and in the confirmation email, for example K7QM-3X9P.
          </span>
          <FieldError id="reference-error" message={problem} />
          <input
            type="text"
            id="reference"
            name="reference"
            value={value}
            maxLength={20}
            autocomplete="off"
            spellcheck={false}
            class="reference-input"
            aria-describedby={describedBy("reference-hint", problem && "reference-error")}
            aria-invalid={problem ? "true" : undefined}
          />
        </div>
        <button type="submit">Check status</button>
      </form>
      {result.kind === "found" ? (
        <section class="success-panel" aria-labelledby="status-result">
          <h2 id="status-result">
            {result.report.reference}: {result.report.statusLabel}
          </h2>
          <p>
            “{result.report.title}” ({result.report.categoryName}), reported {formatDate(result.report.createdAt)}, last
            updated {formatDate(result.report.updatedAt)}.
          </p>
          <p>
            <a href={`/reports/${result.report.reference}`}>See the report and its history</a>
          </p>
        </section>
      ) : null}
      {result.kind === "not-public" ? (
        <section class="notice" aria-labelledby="status-result">
          <h2 id="status-result">{result.reference}: not public</h2>
          <p>
            This report has been hidden or removed by the moderators, so its status is not shown. If it is yours and you
            think this is a mistake, contact the volunteers.
          </p>
        </section>
      ) : null}
    </>
  );
}
