import { type Expression, expressionBuilder, type Kysely, type SqlBool } from "kysely";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";

const MAX_PATTERN = 254;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ADDRESS = /^[^\s@]{1,64}@([^\s@]+)$/;

/**
 * Normalises a ban-list entry: a whole address ("someone@example.org") or a whole domain ("example.org", also
 * written "@example.org"). Throws a validation error naming the field otherwise.
 */
export function normaliseBanPattern(raw: string): string {
  const value = raw.trim().toLowerCase().replace(/^@/, "");
  const address = ADDRESS.exec(value);
  const domain = address ? address[1] : value;
  if (value.length === 0 || value.length > MAX_PATTERN || !domain || !DOMAIN.test(domain)) {
    throw new AppError("validation_failed", "Give an email address or a domain such as example.org.", {
      fields: [{ field: "pattern", message: "must be an email address or a domain such as example.org" }],
    });
  }
  return value;
}

/** The entries that would match an address: the address itself and its domain and every parent domain. */
export function banCandidates(email: string): string[] {
  const value = email.trim().toLowerCase();
  const at = value.lastIndexOf("@");
  if (at < 1) return [];
  const labels = value.slice(at + 1).split(".");
  const domains: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) domains.push(labels.slice(i).join("."));
  return [value, ...domains];
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
