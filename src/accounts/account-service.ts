import type { Civic } from "../core/context.js";
import { sendChallengeMail } from "./challenge-mail.js";
import { consume, findByToken } from "./challenges.js";
import { emailChangeMail } from "./mails.js";
import { hashPassword, passwordProblem } from "./passwords.js";
import type { SourceContext } from "./personal-data.js";
import { findAccountByEmail, getAccount, rememberAddress } from "./repository.js";
import { mediaStorage } from "../core/media/storage.js";

export const NAME_MAX = 100;

/** A name as typed, tidied: control characters removed, spaces collapsed. "" clears it. */
export function cleanName(value: string): string {
  return (
    value
      // eslint-disable-next-line no-control-regex -- removing control characters is the point.
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

export async function updateName(civic: Civic, accountId: string, name: string): Promise<void> {
  await civic.database.db
    .updateTable("accounts")
    .set({ name: name === "" ? null : name, updated_at: civic.now().toISOString() })
    .where("id", "=", accountId)
    .execute();
}

/** Sends a confirmation link to the new address; nothing changes until it is used. */
export async function requestEmailChange(
  civic: Civic,
  accountId: string,
  newEmail: string,
  client: string,
): Promise<void> {
  await sendChallengeMail(civic, {
    purpose: "email-change",
    email: newEmail,
    accountId,
    client,
    linkPath: "/account/email/confirm",
    compose: (link) => emailChangeMail(civic.site, newEmail, link),
  });
}

export type EmailChangeOutcome = "changed" | "expired" | "taken";

export async function confirmEmailChange(civic: Civic, token: unknown): Promise<EmailChangeOutcome> {
  const db = civic.database.db;
  const now = civic.now();
  const challenge = await findByToken(db, "email-change", token, now);
  const account = challenge?.accountId ? await getAccount(db, challenge.accountId) : undefined;
  if (!challenge?.accountId || !account) return "expired";
  const holder = await findAccountByEmail(db, challenge.email);
  if (holder && holder.id !== challenge.accountId) return "taken";
  if (!(await consume(db, challenge.id, now))) return "expired";
  // The old address stays the person's: their data download and erasure still find what is held under it.
  if (account.email !== challenge.email) await rememberAddress(db, account.id, account.email, "former", now);
  await db
    .updateTable("accounts")
    .set({ email: challenge.email, email_verified_at: now.toISOString(), updated_at: now.toISOString() })
    .where("id", "=", challenge.accountId)
    .execute();
  return "changed";
}

/** Sets a new password; returns why it is refused, or null when it was set. */
export async function setPassword(
  civic: Civic,
  accountId: string,
  email: string,
  password: string,
): Promise<string | null> {
  const problem = passwordProblem(password, email);
  if (problem) return problem;
  await civic.database.db
    .updateTable("accounts")
    .set({ password_hash: await hashPassword(password), updated_at: civic.now().toISOString() })
    .where("id", "=", accountId)
    .execute();
  return null;
}

export async function removePassword(civic: Civic, accountId: string): Promise<void> {
  await civic.database.db
    .updateTable("accounts")
    .set({ password_hash: null, updated_at: civic.now().toISOString() })
    .where("id", "=", accountId)
    .execute();
}

export async function listSessions(civic: Civic, accountId: string) {
  return civic.database.db
    .selectFrom("sessions")
    .select(["id", "device", "created_at", "last_seen_at"])
    .where("account_id", "=", accountId)
    .where("expires_at", ">", civic.now().toISOString())
    .orderBy("last_seen_at", "desc")
    .limit(200)
    .execute();
}

export async function listPasskeys(civic: Civic, accountId: string) {
  return civic.database.db
    .selectFrom("passkeys")
    .select(["id", "name", "created_at", "last_used_at"])
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .execute();
}

/** What the personal-data sources need, for this app. */
export function sourceContext(civic: Civic): SourceContext {
  return { db: civic.database.db, storage: mediaStorage(civic.config), now: civic.now() };
}
