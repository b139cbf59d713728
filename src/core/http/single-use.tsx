import type { Kysely } from "kysely";
import type { ComponentChildren } from "preact";
import type { Civic } from "../context.js";
import type { DB } from "../db/schema.js";
import type { FormToken } from "./csrf.js";
import { earlierSubmission, type FormSubmissionKey, formSubmissionKey, recordSubmission } from "./form-submissions.js";

/** Records a form's submission inside the transaction that does its work (see core/http/form-submissions.ts). */
export type RecordSubmission = (tx: Kysely<DB>, result: string) => Promise<void>;

/**
 * Runs a public form's work at most once per filling-in of the form. `work` gets `record`, to call inside its own
 * transaction with what it produced; a replayed form (a re-POST, a double click, a script) finds that record and gets
 * `{ earlier }` instead of doing the work again. Two concurrent posts cannot both succeed: the second insert of the
 * token's nonce fails, its transaction rolls back, and it too is answered with the first result.
 */
export async function oncePerForm<T>(
  civic: Civic,
  token: FormToken | null,
  form: string,
  work: (record: RecordSubmission) => Promise<T>,
): Promise<{ first: T } | { earlier: string }> {
  const db = civic.database.db;
  const key: FormSubmissionKey | undefined = token ? formSubmissionKey(token, form) : undefined;
  if (key) {
    const earlier = await earlierSubmission(db, key);
    if (earlier !== undefined) return { earlier };
  }
  const record: RecordSubmission = key
    ? (tx, result) => recordSubmission(tx, key, result, civic.now())
    : async () => {};
  try {
    return { first: await work(record) };
  } catch (error) {
    const earlier = key ? await earlierSubmission(db, key) : undefined;
    if (earlier !== undefined) return { earlier };
    throw error;
  }
}

/** Whether this form (by its token) was accepted already; the answer to show before checking anything else. */
export async function alreadySubmitted(civic: Civic, token: FormToken | null, form: string) {
  return token ? earlierSubmission(civic.database.db, formSubmissionKey(token, form)) : undefined;
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
