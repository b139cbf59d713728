import type { Kysely } from "kysely";
import type { ComponentChildren } from "preact";
import type { Civic } from "../context.js";
import type { DB } from "../db/schema.js";
import type { FormToken } from "./csrf.js";
import { earlierSubmission, formSubmissionKey, recordSubmission } from "./form-submissions.js";

export { deleteExpiredSubmissions } from "./form-submissions.js";

/**
 * "This form was already sent": every public form is accepted once per filling-in, and this module is the one way
 * in (the dependency rules let no other module read core/http/form-submissions.ts, its storage). A filling-in is
 * named by its form token's nonce; the first post that does its work records, in the transaction that does it, what
 * it produced (a reference, an id); a replay (a re-POST, a double click, a script) finds that record and is answered
 * with the first result, and two concurrent posts cannot both succeed (the second insert of the nonce fails and
 * rolls its transaction back). `oncePerForm` wraps a form's work; work with its own transaction and retries (a
 * report, whose reference is drawn again on a collision; a follow request) takes a `FormUse` instead.
 *
 * The Idempotency-Key (core/http/idempotency.ts, docs/api.md "Idempotency-Key") is the same rule at the HTTP layer, not
 * a second mechanism for forms: it keeps whole answers for clients that have no form token or outlive it (the app's
 * drafts, sent days later; Open311 programs; the report form's hidden `idempotency_key`, which links a form post to
 * the draft the service worker kept of it). It compares the request's content (422 when the key comes with other
 * content), holds a lease while the first request runs (409) and keeps the answer it gave for 30 days. A form
 * token's record is part of the work's own transaction and answers any replay of the filling-in, edited or not, with
 * the first result, for as long as the token lives. POST /report has both: the key answers a repeat before anything
 * else is checked (even once the token has expired), the token catches a replay that comes without the key or with
 * another one.
 */

/** Records a form's submission inside the transaction that does its work (see core/http/form-submissions.ts). */
export type RecordSubmission = (tx: Kysely<DB>, result: string) => Promise<void>;

/** One filling-in of a form: what its first accepted post produced, and how to record this post as that one. */
export interface FormUse {
  /** What the first accepted post of this filling-in produced, or undefined when none was accepted yet. */
  earlier(): Promise<string | undefined>;
  /** Call inside the transaction that does the work; throws a unique violation when the form was accepted already. */
  record: RecordSubmission;
}

/** The filling-in of `form` that `token` names, or undefined without a verified token (nothing to name it by). */
export function formUse(civic: Civic, token: FormToken | null, form: string): FormUse | undefined {
  if (!token) return undefined;
  const key = formSubmissionKey(token, form);
  return {
    earlier: () => earlierSubmission(civic.database.db, key),
    record: (tx, result) => recordSubmission(tx, key, result, civic.now()),
  };
}

/**
 * Runs a public form's work at most once per filling-in of the form. `work` gets `record`, to call inside its own
 * transaction with what it produced; a replayed form finds that record and gets `{ earlier }` instead of doing the
 * work again, as does the second of two concurrent posts (its record fails, so its work is rolled back).
 */
export async function oncePerForm<T>(
  civic: Civic,
  token: FormToken | null,
  form: string,
  work: (record: RecordSubmission) => Promise<T>,
): Promise<{ first: T } | { earlier: string }> {
  const use = formUse(civic, token, form);
  if (use) {
    const earlier = await use.earlier();
    if (earlier !== undefined) return { earlier };
  }
  const record: RecordSubmission = use ? use.record : async () => {};
  try {
    return { first: await work(record) };
  } catch (error) {
    const earlier = use ? await use.earlier() : undefined;
    if (earlier !== undefined) return { earlier };
    throw error;
  }
}

/** Whether this form (by its token) was accepted already; the answer to show before checking anything else. */
export async function alreadySubmitted(civic: Civic, token: FormToken | null, form: string) {
  return formUse(civic, token, form)?.earlier();
}

/** What a resident sees when a form they already sent arrives again: nothing was done twice. */
export function AlreadySent({ what, children }: { what: string; children?: ComponentChildren }) {
  return (
    <>
      <h1>Already sent</h1>
      <p class="lead" role="status">
        We received this {what} already, so it was not sent a second time. You do not need to do anything.
      </p>
      {children}
    </>
  );
}
