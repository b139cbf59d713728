import type { Civic, Viewer } from "../core/context.js";
import { personalDataSources } from "./personal-data.js";
import { sendChallengeMail } from "./challenge-mail.js";
import { openLink, useLink } from "../core/links.js";
import { addAddressMail, emailChangeMail } from "./mails.js";
import { hashPassword, passwordProblem } from "./passwords.js";
import type { SourceContext } from "./personal-data.js";
import { findAccountByEmail, getAccount, rememberAddress } from "./repository.js";
import { afterEmailChange, afterSecurityChange } from "./security.js";
import { mailFileDirectory } from "../core/mail/plugin.js";
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

/**
 * "Add another address of yours": a link to that address, whose message says which account asked. Nothing is
 * added until the link's button is pressed (confirmAddAddress). The mail policy's caps apply as for any challenge.
 */
export async function requestAddAddress(
  civic: Civic,
  accountId: string,
  accountEmail: string,
  address: string,
  client: string,
): Promise<void> {
  await sendChallengeMail(civic, {
    purpose: "add-address",
    email: address,
    accountId,
    client,
    linkPath: "/account/addresses/confirm",
    compose: (link) => addAddressMail(civic.site, address, accountEmail, link),
  });
}

export const ADDRESS_TAKEN =
  "This address is another account's own address, so it cannot be added to this account. Its owner can erase or download its data by signing in with it.";

/** What the page an add-address link opens says (reads only). */
export async function describeAddAddress(
  civic: Civic,
  link: { email: string; accountId: string | null },
): Promise<string> {
  const account = link.accountId ? await getAccount(civic.database.db, link.accountId) : undefined;
  if (!account) return "";
  const holder = await findAccountByEmail(civic.database.db, link.email);
  if (holder && holder.id !== account.id) return ADDRESS_TAKEN;
  return `Add ${link.email} to the account ${account.email}? Its data download and erasure will then include what is held under ${link.email}.`;
}

export type AddAddressOutcome = "added" | "expired" | "taken";

/**
 * Uses an add-address link: the address is recorded as the account's (account_addresses, reason "added"), unless it
 * is another account's own address. Works once.
 */
export async function confirmAddAddress(civic: Civic, token: unknown): Promise<AddAddressOutcome> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (db) => {
    const opened = await openLink(db, "add-address", token, now);
    const account = opened?.accountId ? await getAccount(db, opened.accountId) : undefined;
    if (!opened || !account) return "expired";
    const holder = await findAccountByEmail(db, opened.email);
    if (holder && holder.id !== account.id) return "taken";
    if (!(await useLink(db, "add-address", token, now))) return "expired";
    if (account.email !== opened.email) await rememberAddress(db, account.id, opened.email, "added", now);
    return "added";
  });
}

export type EmailChangeOutcome = "changed" | "expired" | "taken";

/**
 * Uses a confirmation link for a new address: the account's address changes, its other sessions end (the one
 * confirming keeps its own when it is the account's), and the old address is told, with a link that undoes it.
 */
export async function confirmEmailChange(
  civic: Civic,
  token: unknown,
  viewer: Viewer | null,
): Promise<EmailChangeOutcome> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (db) => {
    const opened = await openLink(db, "email-change", token, now);
    const account = opened?.accountId ? await getAccount(db, opened.accountId) : undefined;
    if (!opened || !account) return "expired";
    const holder = await findAccountByEmail(db, opened.email);
    if (holder && holder.id !== account.id) return "taken";
    const challenge = await useLink(db, "email-change", token, now);
    if (!challenge) return "expired";
    // The old address stays the person's: their data download and erasure still find what is held under it.
    if (account.email !== challenge.email) await rememberAddress(db, account.id, account.email, "former", now);
    await db
      .updateTable("accounts")
      .set({ email: challenge.email, email_verified_at: now.toISOString(), updated_at: now.toISOString() })
      .where("id", "=", account.id)
      .execute();
    await afterEmailChange(civic, db, {
      accountId: account.id,
      oldEmail: account.email,
      keepSessionId: viewer?.accountId === account.id ? viewer.sessionId : null,
    });
    return "changed";
  });
}

/**
 * Sets a new password; returns why it is refused, or null when it was set. The account's other sessions end and its
 * address is told (security.ts).
 */
export async function setPassword(
  civic: Civic,
  viewer: Viewer,
  email: string,
  password: string,
): Promise<string | null> {
  const problem = passwordProblem(password, email);
  if (problem) return problem;
  const hash = await hashPassword(password);
  await civic.database.db.transaction().execute(async (db) => {
    await db
      .updateTable("accounts")
      .set({ password_hash: hash, updated_at: civic.now().toISOString() })
      .where("id", "=", viewer.accountId)
      .execute();
    await afterSecurityChange(civic, db, {
      accountId: viewer.accountId,
      keepSessionId: viewer.sessionId,
      change: "password-set",
    });
  });
  return null;
}

export async function removePassword(civic: Civic, viewer: Viewer): Promise<void> {
  await civic.database.db.transaction().execute(async (db) => {
    const removed = await db
      .updateTable("accounts")
      .set({ password_hash: null, updated_at: civic.now().toISOString() })
      .where("id", "=", viewer.accountId)
      .where("password_hash", "is not", null)
      .executeTakeFirst();
    if (Number(removed.numUpdatedRows) === 0) return;
    await afterSecurityChange(civic, db, {
      accountId: viewer.accountId,
      keepSessionId: viewer.sessionId,
      change: "password-removed",
    });
  });
}

/** Removes one of the viewer's passkeys; the other sessions end and the address is told. */
export async function removePasskey(civic: Civic, viewer: Viewer, passkeyId: string): Promise<void> {
  await civic.database.db.transaction().execute(async (db) => {
    const removed = await db
      .deleteFrom("passkeys")
      .where("id", "=", passkeyId)
      .where("account_id", "=", viewer.accountId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return;
    await afterSecurityChange(civic, db, {
      accountId: viewer.accountId,
      keepSessionId: viewer.sessionId,
      change: "passkey-removed",
    });
  });
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
  return {
    db: civic.database.db,
    storage: mediaStorage(civic.config),
    now: civic.now(),
    sources: personalDataSources(civic),
    mailFiles: mailFileDirectory(civic.config),
  };
}
