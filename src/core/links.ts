import { type Kysely, type Selectable, sql } from "kysely";
import type { DB, EmailLinksTable } from "./db/schema.js";
import { hashToken, looksLikeToken, newToken } from "./tokens.js";

/**
 * Emailed links, one mechanism for every kind (sign-in, email change and its undo, my data, and the features'
 * confirmations): a link has a purpose, a subject (the address it was sent to, and the account when one asked), the
 * feature row it acts on (`ref`), an expiry and a use count. Only the sha256 of its token is stored (`email_links`,
 * written only through these functions).
 *
 * - `openLink` is for the page a link opens (GET): it reads, and changes nothing.
 * - `useLink` is for the button on that page (POST): one conditional UPDATE … RETURNING counts the use, so two
 *   concurrent uses of a single-use link cannot both succeed, on SQLite and PostgreSQL alike.
 * - A used link never comes back: `reopenUnused` (the mailbox-cap relief) only extends links never used, and
 *   `endLinks` either revokes (for good) or expires early (never used, so the relief may reopen it).
 */
export type LinkPurpose = string;

export interface IssueLink {
  purpose: LinkPurpose;
  /** The lower-case address the link is mailed to. */
  email: string;
  accountId?: string | null;
  /** The feature row the link acts on (a volunteer id, a challenge id...). */
  ref?: string | number | null;
  expiresAt: Date;
  /** How many times the button may be pressed; null: any number of times until it expires. */
  maxUses: number | null;
}

export interface LiveLink {
  id: number;
  purpose: LinkPurpose;
  email: string;
  accountId: string | null;
  ref: string | null;
  expiresAt: string;
  uses: number;
  maxUses: number | null;
}

type Row = Selectable<
  Pick<EmailLinksTable, "purpose" | "email" | "account_id" | "ref" | "expires_at" | "uses" | "max_uses">
> & { id: number };

const COLUMNS = ["id", "purpose", "email", "account_id", "ref", "expires_at", "uses", "max_uses"] as const;

function live(row: Row): LiveLink {
  return {
    id: Number(row.id),
    purpose: row.purpose,
    email: row.email,
    accountId: row.account_id,
    ref: row.ref,
    expiresAt: row.expires_at,
    uses: Number(row.uses),
    maxUses: row.max_uses === null ? null : Number(row.max_uses),
  };
}

/** Stores a new link (in the caller's transaction when `db` is one) and returns its token, for the mail only. */
export async function issueLink(db: Kysely<DB>, input: IssueLink, now: Date): Promise<string> {
  const token = newToken();
  await db
    .insertInto("email_links")
    .values({
      purpose: input.purpose,
      token_hash: hashToken(token),
      email: input.email,
      account_id: input.accountId ?? null,
      ref: input.ref === null || input.ref === undefined ? null : String(input.ref),
      created_at: now.toISOString(),
      expires_at: input.expiresAt.toISOString(),
      max_uses: input.maxUses,
      uses: 0,
      first_used_at: null,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return token;
}

/** The link a token names, if it can still be used now. Reads only: for the page a link opens. */
export async function openLink(
  db: Kysely<DB>,
  purpose: LinkPurpose,
  token: unknown,
  now: Date,
): Promise<LiveLink | null> {
  if (!looksLikeToken(token)) return null;
  const row = await db
    .selectFrom("email_links")
    .select(COLUMNS)
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("expires_at", ">", now.toISOString())
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("max_uses", "is", null), eb("uses", "<", eb.ref("max_uses"))]))
    .executeTakeFirst();
  return row ? live(row) : null;
}

/** Uses a link once (the button was pressed): the link as it was, or null when it is expired, used up or revoked. */
export async function useLink(
  db: Kysely<DB>,
  purpose: LinkPurpose,
  token: unknown,
  now: Date,
): Promise<LiveLink | null> {
  if (!looksLikeToken(token)) return null;
  const at = now.toISOString();
  const row = await db
    .updateTable("email_links")
    .set((eb) => ({
      uses: eb("uses", "+", 1),
      first_used_at: eb.fn.coalesce("first_used_at", eb.val(at)),
      last_used_at: at,
    }))
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("expires_at", ">", at)
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("max_uses", "is", null), eb("uses", "<", eb.ref("max_uses"))]))
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? live(row) : null;
}

export interface LinkSelection {
  purpose: LinkPurpose;
  ref?: string | number;
  accountId?: string;
  email?: string;
}

/**
 * Ends the live links of a purpose for a feature row, account or address. "revoke": for good (the thing was done
 * another way, or cancelled). "expire": ends them now as if their time had run out; a link never used may then
 * still be reopened by `reopenUnused`. Returns how many ended.
 */
export async function endLinks(
  db: Kysely<DB>,
  which: LinkSelection,
  now: Date,
  how: "revoke" | "expire" = "revoke",
): Promise<number> {
  const at = now.toISOString();
  let q = db
    .updateTable("email_links")
    .set(how === "revoke" ? { revoked_at: at } : { expires_at: at })
    .where("purpose", "=", which.purpose)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", at);
  if (which.ref !== undefined) q = q.where("ref", "=", String(which.ref));
  if (which.accountId !== undefined) q = q.where("account_id", "=", which.accountId);
  if (which.email !== undefined) q = q.where("email", "=", which.email);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The mailbox-cap relief: the newest link of this purpose sent to this address (and account) in the last day keeps
 * working until `until`, if it was never used nor revoked. A used link never comes back. Returns whether one was.
 */
export async function reopenUnused(
  db: Kysely<DB>,
  which: { purpose: LinkPurpose; email: string; accountId: string | null },
  now: Date,
  until: Date,
): Promise<boolean> {
  let newest = db
    .selectFrom("email_links")
    .select("id")
    .where("purpose", "=", which.purpose)
    .where("email", "=", which.email)
    .where("created_at", ">", new Date(now.getTime() - 24 * 60 * 60_000).toISOString())
    .orderBy("id", "desc")
    .limit(1);
  if (which.accountId) newest = newest.where("account_id", "=", which.accountId);
  const row = await newest.executeTakeFirst();
  if (!row) return false;
  const result = await db
    .updateTable("email_links")
    .set({ expires_at: until.toISOString() })
    .where("id", "=", row.id)
    .where("uses", "=", 0)
    .where("revoked_at", "is", null)
    .where("expires_at", "<", until.toISOString())
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes links that ended more than a day ago (they hold addresses); for the retention job. Returns how many. */
export async function purgeLinks(db: Kysely<DB>, now: Date, batch = 1000): Promise<number> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60_000).toISOString();
  const result = await db
    .deleteFrom("email_links")
    .where("id", "in", (eb) => eb.selectFrom("email_links").select("id").where("expires_at", "<", dayAgo).limit(batch))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes the links of `purpose` whose row (`ref`, an integer id of `table`) is gone: a feature's row deleted by the
 * retention job or an erasure takes its links, and the address they hold, with it. Returns how many.
 */
export async function purgeOrphanLinks(
  db: Kysely<DB>,
  purpose: LinkPurpose,
  table:
    "ideas" | "volunteers" | "newsletter_subscribers" | "report_followers" | "report_alerts" | "report_update_requests",
  batch = 1000,
): Promise<number> {
  const orphans = db
    .selectFrom("email_links")
    .select("id")
    .where("purpose", "=", purpose)
    .where("ref", "is not", null)
    .where(({ not, exists, selectFrom, ref }) =>
      not(
        exists(
          selectFrom(table)
            .select(sql<number>`1`.as("one"))
            .where(sql`cast(${sql.ref(`${table}.id`)} as text)`, "=", ref("email_links.ref")),
        ),
      ),
    )
    .limit(batch);
  const result = await db.deleteFrom("email_links").where("id", "in", orphans).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Erases every link sent to these addresses or for this account (a person's erasure). */
export async function eraseLinks(
  db: Kysely<DB>,
  subject: { emails: string[]; accountId: string | null },
): Promise<void> {
  if (subject.emails.length > 0) await db.deleteFrom("email_links").where("email", "in", subject.emails).execute();
  if (subject.accountId) await db.deleteFrom("email_links").where("account_id", "=", subject.accountId).execute();
}
