import type { Civic, Viewer } from "../core/context.js";
import type { Role } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { authorise, roleAtLeast, rolesWhoMay } from "../core/policy.js";
import { keepAnAdmin } from "../accounts/index.js";
import { findAccountByEmail, isRole, setRole } from "../accounts/index.js";
import { normaliseEmail } from "../core/email-address.js";
import { createApiKey, type CreatedApiKey, revokeApiKey } from "../open311/index.js";
import { recordAudit } from "../core/staff/audit.js";

function problem(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, message }] });
}

/** Staff accounts (moderators and admins), for the roles page. */
export async function listStaff(civic: Civic) {
  return civic.database.db
    .selectFrom("accounts")
    .select(["id", "email", "name", "role"])
    .where("role", "in", rolesWhoMay("staff.enter"))
    .orderBy("role", "desc")
    .orderBy("email")
    .limit(1000)
    .execute();
}

/**
 * Gives an existing account a role (resident takes the staff role away). The last active admin cannot be demoted
 * (accounts/admins.ts), so the console always has someone who can administer it. Audited.
 */
export async function changeRole(
  civic: Civic,
  viewer: Viewer,
  email: string,
  role: string,
  reason: string,
): Promise<void> {
  const db = civic.database.db;
  if (!isRole(role)) throw problem("role", "Choose a role.");
  const clean = normaliseEmail(email);
  if (!clean) throw problem("email", "Enter the email address of the account.");
  const account = await findAccountByEmail(db, clean);
  if (!account) {
    throw problem("email", "There is no account with this email address. Ask them to sign in once, then try again.");
  }
  authorise(viewer, "account.change-role", { type: "account", id: account.id, role: account.role });
  if (account.role === role) throw problem("role", `This account already has the role ${role}.`);
  const now = civic.now();
  await db.transaction().execute(async (tx) => {
    // Refuses when this would leave no active admin (it asks the policy who administers).
    await keepAnAdmin(tx, account.id, "role");
    await setRole(tx, account.id, role as Role, now);
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: roleAtLeast(account.role, role as Role) ? "role.revoke" : "role.grant",
      itemType: "account",
      itemId: account.id,
      reason: reason.trim() || null,
      details: { from: account.role, to: role },
      at: now,
    });
  });
}

export const API_KEY_NAME_MAX = 100;

/** A new Open311 API key (the key is returned once and never stored). Audited. */
export async function staffCreateApiKey(civic: Civic, viewer: Viewer, name: string): Promise<CreatedApiKey> {
  const clean = name.trim();
  if (!clean) throw problem("name", "Enter a name for the key (who or what uses it).");
  if (clean.length > API_KEY_NAME_MAX)
    throw problem("name", `The name must be at most ${API_KEY_NAME_MAX} characters.`);
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const created = await createApiKey(tx, clean, now);
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "api_key.create",
      itemType: "api_key",
      itemId: created.id,
      details: { name: clean, prefix: created.prefix },
      at: now,
    });
    return created;
  });
}

/** Revokes a key. Audited. */
export async function staffRevokeApiKey(civic: Civic, viewer: Viewer, id: number): Promise<void> {
  const now = civic.now();
  await civic.database.db.transaction().execute(async (tx) => {
    if (!(await revokeApiKey(tx, id, now))) {
      throw new AppError("not_found", "There is no active API key with this id (it may already be revoked).");
    }
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "api_key.revoke",
      itemType: "api_key",
      itemId: id,
      at: now,
    });
  });
}
