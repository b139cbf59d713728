import { ErrorSummary, Field } from "../../core/web/forms.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { Honeypot } from "../../core/web/components.js";
import { CsrfField } from "../../core/web/layout.js";

/**
 * "Get updates by email" on a public report page: one email field and a button. Works without JavaScript; the
 * answer is the same whether or not the address already follows the report.
 */
export function FollowForm(p: { reference: string; csrfToken: string; email?: string; problems?: FieldProblem[] }) {
  const problems = p.problems ?? [];
  return (
    <section class="follow-report" aria-labelledby="follow-title">
      <h2 id="follow-title">Get updates by email</h2>
      <ErrorSummary problems={problems} />
      <form method="post" action={`/reports/${p.reference}/follow`} novalidate>
        <CsrfField token={p.csrfToken} />
        <Field
          id="follow-email"
          name="email"
          type="email"
          label="Your email address"
          hint="We send a link to confirm first. Your address is never shown, and every update has a link to stop them."
          value={p.email ?? ""}
          problems={problems}
          autocomplete="email"
          maxLength={254}
        />
        <Honeypot />
        <p>
          <button type="submit">Get updates</button>
        </p>
      </form>
    </section>
  );
}
