import type { FastifyRequest } from "fastify";
import { getAccount } from "./repository.js";

/** The signed-in person's name and address, to prefill the report form (what is public does not change). */
export async function reporterDefaults(request: FastifyRequest): Promise<{ email: string; name: string } | null> {
  if (!request.viewer) return null;
  const account = await getAccount(request.server.civic.database.db, request.viewer.accountId);
  return account ? { email: account.email, name: account.name ?? "" } : null;
}
