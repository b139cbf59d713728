import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Account, DB, Role } from "../core/db/schema.js";

export const ROLES: readonly Role[] = ["resident", "moderator", "admin"];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export async function findAccountByEmail(db: Kysely<DB>, email: string): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst();
}

export async function getAccount(db: Kysely<DB>, id: string): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The account for a confirmed address, created on first use. Safe against two confirmations racing. */
export async function findOrCreateAccount(db: Kysely<DB>, email: string, now: Date): Promise<Account> {
  const existing = await findAccountByEmail(db, email);
  if (existing) return existing;
  const at = now.toISOString();
  await db
    .insertInto("accounts")
    .values({
      id: randomUUID(),
      email,
      name: null,
      password_hash: null,
      created_at: at,
      updated_at: at,
      email_verified_at: at,
      suspended_at: null,
      suspended_reason: null,
    })
    .onConflict((oc) => oc.column("email").doNothing())
    .execute();
  const created = await findAccountByEmail(db, email);
  if (!created) throw new Error("account vanished after insert");
  return created;
}

export async function listAccounts(db: Kysely<DB>): Promise<Account[]> {
  return db.selectFrom("accounts").selectAll().orderBy("role", "desc").orderBy("email").limit(10_000).execute();
}

export async function setRole(db: Kysely<DB>, accountId: string, role: Role, now: Date): Promise<void> {
  await db.updateTable("accounts").set({ role, updated_at: now.toISOString() }).where("id", "=", accountId).execute();
}

/** The other addresses the account has proved it holds (former ones, added ones), for resolveSubject. */
export async function provedAddresses(db: Kysely<DB>, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("account_addresses")
    .select("email")
    .where("account_id", "=", accountId)
    .limit(1000)
    .execute();
  return rows.map((r) => r.email);
}

/**
 * Records another address the account has proved it holds for this account (its former address after a change, or
 * one added with "Add another address of yours" and confirmed from that mailbox), so the data download and the
 * erasure find what is held under it (idempotent). Rows with reason "my-data" are from before issue 33, when opening
 * a my-data link while signed in added its address; nothing adds them any more.
 */
export async function rememberAddress(
  db: Kysely<DB>,
  accountId: string,
  email: string,
  reason: "former" | "my-data" | "added",
  now: Date,
): Promise<void> {
  const address = email.trim().toLowerCase();
  await db
    .insertInto("account_addresses")
    .values({ account_id: accountId, email: address, reason, created_at: now.toISOString() })
    .onConflict((oc) => oc.columns(["account_id", "email"]).doNothing())
    .execute();
}
