import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { FORM_TOKEN_MAX_AGE_MS, type FormToken } from "./csrf.js";

/**
 * Each filling-in of a form is accepted once. When a form post succeeds, its form token's nonce is recorded with
 * what it produced (in the same transaction, under a primary key on the nonce); a replay of the token (a browser
 * re-POST, a double click, a script) finds that row and is shown the first result instead of creating anything
 * again. Two concurrent posts cannot both succeed: the second insert of the nonce fails and rolls its transaction
 * back. Rows are useless once the token has expired and are deleted then.
 */
export interface FormSubmissionKey {
  nonce: string;
  form: string;
  expiresAt: Date;
}

/** The key under which a verified token's submission of `form` is recorded (one use per form). */
export function formSubmissionKey(token: FormToken, form: string): FormSubmissionKey {
  return {
    nonce: `${form}:${token.nonce}`,
    form,
    expiresAt: new Date(token.issuedAt + FORM_TOKEN_MAX_AGE_MS + 60_000),
  };
}

/** What an earlier submission with this token produced, or undefined. */
export async function earlierSubmission(db: Kysely<DB>, key: FormSubmissionKey): Promise<string | undefined> {
  const row = await db
    .selectFrom("form_submissions")
    .select("result")
    .where("nonce", "=", key.nonce)
    .executeTakeFirst();
  return row?.result;
}

/** Records a submission; throws a unique violation when the token was used already. Call inside the transaction. */
export async function recordSubmission(db: Kysely<DB>, key: FormSubmissionKey, result: string, now: Date) {
  await db
    .insertInto("form_submissions")
    .values({
      nonce: key.nonce,
      form: key.form,
      result,
      created_at: now.toISOString(),
      expires_at: key.expiresAt.toISOString(),
    })
    .execute();
}

/** Deletes the records of tokens that have expired. */
export async function deleteExpiredSubmissions(db: Kysely<DB>, now: Date): Promise<void> {
  await db.deleteFrom("form_submissions").where("expires_at", "<", now.toISOString()).execute();
}
