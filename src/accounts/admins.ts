import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { rolesWhoMay } from "../core/policy.js";

export const LAST_ADMIN =
  "This is the last administrator: make someone else an administrator first, so that somebody can still run the platform.";

/** The refusal of keepAnAdmin: a validation error on the form's field, which routes may also present their own way. */
export class LastAdminError extends AppError {
  constructor(field: string) {
    super("validation_failed", LAST_ADMIN, { fields: [{ field, message: LAST_ADMIN }] });
  }
}

/**
 * Refuses (LastAdminError, on the form's `field`) when taking the admin powers from `accountId` (a demotion, a
 * suspension, the account's deletion) would leave no active admin, i.e. no admin who is not suspended. Call it in
 * the transaction that makes the change, before making it.
 *
 * The admins are read with a no-op UPDATE rather than a SELECT: it locks their rows on PostgreSQL (and SQLite runs
 * one writer at a time), so two admins removing each other at the same moment cannot both see the other still
 * there; the second waits for the first and then sees what it changed.
 */
export async function keepAnAdmin(db: Kysely<DB>, accountId: string, field = "role"): Promise<void> {
  const target = await db
    .selectFrom("accounts")
    .select("id")
    .where("id", "=", accountId)
    .where("role", "in", rolesWhoMay("staff.administer"))
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  // Residents, moderators and suspended admins hold no admin powers to lose: nothing to lock.
  if (!target) return;
  const admins = await db
    .updateTable("accounts")
    .set((eb) => ({ role: eb.ref("role") }))
    .where("role", "in", rolesWhoMay("staff.administer"))
    .where("suspended_at", "is", null)
    .returning("id")
    .execute();
  if (admins.some((a) => a.id === accountId) && admins.length <= 1) {
    throw new LastAdminError(field);
  }
}
