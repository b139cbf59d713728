import { ErrorSummary, Field } from "../../core/web/forms.js";
import type { FieldProblem } from "../../core/http/errors.js";
import { Honeypot } from "../../core/web/components.js";
import { CsrfField } from "../../core/web/layout.js";

/** "3 people have said they have seen this too." */
export function seenWords(count: number): string {
  if (count === 0) return "Nobody has said they have seen this too yet.";
  return `${count.toLocaleString("en-GB")} ${count === 1 ? "person has" : "people have"} said they have seen this too.`;
}

/**
 * "I have seen this too" on a public report page: the count (never who) and one button, a plain form POST that
 * works without JavaScript. Signed in, the mark is the account's; otherwise an optional address (confirmed by an
 * emailed link) makes it count once for that address, and without one it counts once for this connection today.
 */
export function SeenForm(p: {
  reference: string;
  csrfToken: string;
  count: number;
  signedIn: boolean;
  email?: string;
  problems?: FieldProblem[];
}) {
  const problems = p.problems ?? [];
  return (
    <section class="seen-too" id="seen-too" aria-labelledby="seen-title">
      <h2 id="seen-title">Have you seen this too?</h2>
      <p class="seen-count">{seenWords(p.count)}</p>
      <ErrorSummary problems={problems} />
      <form method="post" action={`/reports/${p.reference}/seen`} novalidate>
        <CsrfField token={p.csrfToken} />
        {p.signedIn ? (
          <p class="hint">It counts once for your account. Nobody is shown who said so.</p>
        ) : (
          <Field
            id="seen-email"
            name="email"
            type="email"
            label="Your email address (optional)"
            hint="With an address, we send a link to confirm and it counts once for you. Without, it counts once for this connection today. Nobody is shown who said so."
            value={p.email ?? ""}
            problems={problems}
            autocomplete="email"
            maxLength={254}
          />
        )}
        <Honeypot id="seen-website" />
        <p>
          <button type="submit">I have seen this too</button>
        </p>
      </form>
    </section>
  );
}
