import type { FastifyInstance } from "fastify";
import { accountRoutes as accountPageRoutes } from "./account-routes.js";
import { dataRoutes } from "./data-routes.js";
import { passkeyRoutes } from "./passkey-routes.js";
import { signInRoutes } from "./sign-in-routes.js";

/** Accounts: sign-in, the account pages, personal data rights (/my-data too) and passkeys. */
export async function accountRoutes(app: FastifyInstance): Promise<void> {
  await app.register(signInRoutes);
  await app.register(accountPageRoutes);
  await app.register(dataRoutes);
  await app.register(passkeyRoutes);
}
