import type { Kysely } from "kysely";
import type { FastifyRequest } from "fastify";
import type { DB } from "../core/db/schema.js";
import { getAccount } from "./repository.js";

/**
 * Identity rule for forms: something a signed-in person sends is filed under their account, and so under the
 * account's own address, never an address typed into the form. A typed address proves nothing, and a row that joined
 * an account to another person's address would make that person's data the account's (or the account's content
 * that person's). Forms that file under the account (a report, a volunteering sign-up) ask this for the address
 * instead of showing an email field; a sign-up that does not file under the account (newsletter, following a report)
 * may take another address, which is then proved by its own mailbox for that sign-up alone.
 */
export async function accountAddress(db: Kysely<DB>, accountId: string): Promise<string | null> {
  return (await getAccount(db, accountId))?.email ?? null;
}

/** The signed-in person's name, to prefill the report form (their address is the account's: the form asks none). */
export async function reporterDefaults(request: FastifyRequest): Promise<{ name: string } | null> {
  if (!request.viewer) return null;
  const account = await getAccount(request.server.civic.database.db, request.viewer.accountId);
  return account ? { name: account.name ?? "" } : null;
}
