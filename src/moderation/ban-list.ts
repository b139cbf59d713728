import { type Expression, expressionBuilder, type Kysely, type SqlBool } from "kysely";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { comparableAddress, mailboxKey, normaliseEmail, untagged } from "../core/email-address.js";

const MAX_PATTERN = 254;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function invalidPattern(): AppError {
  return new AppError("validation_failed", "Give an email address or a domain such as example.org.", {
    fields: [{ field: "pattern", message: "must be an email address or a domain such as example.org" }],
  });
}

/**
 * Normalises a ban-list entry: a whole address ("someone@example.org") or a whole domain ("example.org", also
 * written "@example.org"), as the addresses it is compared with are (core/email-address.ts): lower case, no
 * trailing dot, and an address as its mailbox ("troll+1@example.net" is stored as "troll@example.net", so it bans
 * every +tag). Throws a validation error naming the field otherwise (invisible characters included).
 */
export function normaliseBanPattern(raw: string): string {
  const trimmed = raw.trim().replace(/^@/, "");
  if (trimmed.includes("@")) {
    const address = normaliseEmail(trimmed);
    const value = address ? mailboxKey(address) : "";
    const domain = value.slice(value.lastIndexOf("@") + 1);
    if (!address || value.length > MAX_PATTERN || !DOMAIN.test(domain)) throw invalidPattern();
    return value;
  }
  const domain = trimmed.toLowerCase().replace(/\.$/, "");
  if (domain.length > MAX_PATTERN || !DOMAIN.test(domain)) throw invalidPattern();
  return domain;
}

/**
 * The entries that would match an address, compared as one mailbox (core/email-address.ts: case, trailing dots,
 * invisible characters and `+tag` make no difference): the address itself, its untagged form, its mailbox key,
 * its domain and every parent domain.
 */
export function banCandidates(email: string): string[] {
  const value = comparableAddress(email);
  const at = value.lastIndexOf("@");
  if (at < 1) return [];
  const labels = value.slice(at + 1).split(".");
  const domains: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) domains.push(labels.slice(i).join("."));
  return [...new Set([value, untagged(value), mailboxKey(value), ...domains])];
}

/**
 * Who is contributing something: the signed-in account (or the account a client named), and every address the
 * submission involves (the form's email field, a volunteer's or follower's address). The ban applies to all of them:
 * leaving the email field empty while signed in as a banned account, or typing a banned address while signed in
 * as another, changes nothing.
 */
export interface Contributor {
  accountId: string | null;
  addresses: readonly (string | null | undefined)[];
}

/**
 * The ban-list entries that would match a contributor: those of each address and of the account's own address (read
 * from the database only when there is an account). The one place every kind of content asks, by every channel
 * (web forms, the drafts endpoint, Open311): reports put the result into their insert (bannedCondition), other
 * kinds ask isBanned.
 */
export async function contributorBanCandidates(db: Kysely<DB>, contributor: Contributor): Promise<string[]> {
  const addresses = contributor.addresses.filter((a): a is string => typeof a === "string" && a.trim() !== "");
  if (contributor.accountId) {
    const account = await db
      .selectFrom("accounts")
      .select("email")
      .where("id", "=", contributor.accountId)
      .executeTakeFirst();
    if (account) addresses.push(account.email);
  }
  return [...new Set(addresses.flatMap(banCandidates))];
}

/**
 * Whether what a contributor sends is to be dropped or kept unpublished: their account's address or one of the
 * addresses involved is on the ban list. The sender gets the usual answer either way (the ban is not announced).
 */
export async function isBanned(db: Kysely<DB>, contributor: Contributor): Promise<boolean> {
  const candidates = await contributorBanCandidates(db, contributor);
  if (candidates.length === 0) return false;
  const row = await db.selectFrom("banned_senders").select("id").where("pattern", "in", candidates).executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether reports from an address are to be stored but never published, as a condition to put into the statement
 * that stores the report (no query of its own), from the address's banCandidates; null when there are none (no
 * address). Takes the candidates rather than the address so that a statement template (core/db/templates.ts) can
 * make each one a parameter.
 */
export function bannedCondition(candidates: readonly string[]): Expression<SqlBool> | null {
  if (candidates.length === 0) return null;
  const eb = expressionBuilder<DB, never>();
  return eb.exists(eb.selectFrom("banned_senders").select("id").where("pattern", "in", candidates));
}

export async function listBans(db: Kysely<DB>) {
  return db.selectFrom("banned_senders").selectAll().orderBy("pattern").execute();
}

/** Adds an entry; adding one that exists already changes nothing. Returns the stored pattern. */
export async function addBan(
  db: Kysely<DB>,
  input: { pattern: string; reason: string; by: string | null },
  now: Date,
): Promise<string> {
  const pattern = normaliseBanPattern(input.pattern);
  await db
    .insertInto("banned_senders")
    .values({ pattern, reason: input.reason, created_by: input.by, created_at: now.toISOString() })
    .onConflict((oc) => oc.column("pattern").doNothing())
    .execute();
  return pattern;
}

/** Removes an entry; false when there was none with this id. */
export async function removeBan(db: Kysely<DB>, id: number): Promise<string | null> {
  const row = await db.deleteFrom("banned_senders").where("id", "=", id).returning("pattern").executeTakeFirst();
  return row?.pattern ?? null;
}
