/**
 * The open311 feature's public entry: what other features may use of it (the dependency rules in
 * .dependency-cruiser.cjs let them import this file and no other of the folder).
 */
export { createApiKey, listApiKeys, revokeApiKey } from "./keys.js";
export type { ApiKeyListing, CreatedApiKey } from "./keys.js";
