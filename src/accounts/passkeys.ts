import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from "@simplewebauthn/server";
import type { Civic, Viewer } from "../core/context.js";
import type { Account } from "../core/db/schema.js";
import { hashToken, looksLikeToken, newToken } from "../core/tokens.js";
import { getAccount } from "./repository.js";
import { afterSecurityChange } from "./security.js";

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server. The relying party is BASE_URL's host. A ceremony's challenge is
 * kept in the database under a random handle the page sends back, so no cookie is needed before signing in and any
 * process can finish a ceremony another one started.
 */
const CHALLENGE_MS = 5 * 60_000;
export const PASSKEY_NAME_MAX = 60;

function relyingParty(civic: Civic) {
  const url = new URL(civic.config.baseUrl);
  return { id: url.hostname, origin: url.origin, name: `${civic.site.villageName} Community Platform` };
}

async function keepChallenge(civic: Civic, challenge: string, accountId: string | null): Promise<string> {
  const handle = newToken();
  const now = civic.now();
  const db = civic.database.db;
  await db.deleteFrom("webauthn_challenges").where("expires_at", "<", now.toISOString()).execute();
  await db
    .insertInto("webauthn_challenges")
    .values({
      handle_hash: hashToken(handle),
      challenge,
      account_id: accountId,
      expires_at: new Date(now.getTime() + CHALLENGE_MS).toISOString(),
    })
    .execute();
  return handle;
}

/** Takes a ceremony's challenge out of the database (each is used at most once). */
async function takeChallenge(civic: Civic, handle: unknown, accountId: string | null): Promise<string | null> {
  if (!looksLikeToken(handle)) return null;
  const db = civic.database.db;
  const row = await db
    .selectFrom("webauthn_challenges")
    .selectAll()
    .where("handle_hash", "=", hashToken(handle))
    .where("expires_at", ">", civic.now().toISOString())
    .executeTakeFirst();
  if (!row || row.account_id !== accountId) return null;
  const deleted = await db
    .deleteFrom("webauthn_challenges")
    .where("handle_hash", "=", row.handle_hash)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1 ? row.challenge : null;
}

export async function registrationOptions(civic: Civic, account: Account) {
  const rp = relyingParty(civic);
  const existing = await civic.database.db
    .selectFrom("passkeys")
    .select(["id", "transports"])
    .where("account_id", "=", account.id)
    .execute();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.email,
    userID: new TextEncoder().encode(account.id),
    userDisplayName: account.name ?? account.email,
    attestationType: "none",
    excludeCredentials: existing.map((k) => ({ id: k.id, transports: JSON.parse(k.transports) as string[] })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  return { handle: await keepChallenge(civic, options.challenge, account.id), options };
}

/** Verifies a new passkey and stores it; returns a message when it is refused. */
export async function registerPasskey(
  civic: Civic,
  viewer: Viewer,
  handle: unknown,
  response: unknown,
  name: string,
): Promise<string | null> {
  const accountId = viewer.accountId;
  const expectedChallenge = await takeChallenge(civic, handle, accountId);
  if (!expectedChallenge) return "This attempt took too long. Please try again.";
  const rp = relyingParty(civic);
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    return "The passkey could not be checked. Please try again.";
  }
  if (!verification.verified) return "The passkey could not be checked. Please try again.";
  const { credential } = verification.registrationInfo;
  const count = await civic.database.db
    .selectFrom("passkeys")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  await civic.database.db.transaction().execute(async (db) => {
    const added = await db
      .insertInto("passkeys")
      .values({
        id: credential.id,
        account_id: accountId,
        public_key: Buffer.from(credential.publicKey).toString("base64url"),
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? []),
        name: name || `Passkey ${Number(count?.n ?? 0) + 1}`,
        created_at: civic.now().toISOString(),
        last_used_at: null,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .executeTakeFirst();
    if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return;
    await afterSecurityChange(civic, db, { accountId, keepSessionId: viewer.sessionId, change: "passkey-added" });
  });
  return null;
}

export async function authenticationOptions(civic: Civic) {
  const options = await generateAuthenticationOptions({ rpID: relyingParty(civic).id, userVerification: "preferred" });
  return { handle: await keepChallenge(civic, options.challenge, null), options };
}

/** Checks a passkey sign-in; returns the account, or null when it is refused. */
export async function verifyPasskeySignIn(civic: Civic, handle: unknown, response: unknown): Promise<Account | null> {
  const expectedChallenge = await takeChallenge(civic, handle, null);
  const id = (response as { id?: unknown } | null)?.id;
  if (!expectedChallenge || typeof id !== "string" || id.length > 1400) return null;
  const db = civic.database.db;
  const key = await db.selectFrom("passkeys").selectAll().where("id", "=", id).executeTakeFirst();
  if (!key) return null;
  const rp = relyingParty(civic);
  try {
    const result = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      credential: {
        id: key.id,
        publicKey: new Uint8Array(Buffer.from(key.public_key, "base64url")),
        counter: Number(key.counter),
        transports: JSON.parse(key.transports) as WebAuthnCredential["transports"],
      },
    });
    if (!result.verified) return null;
    await db
      .updateTable("passkeys")
      .set({ counter: result.authenticationInfo.newCounter, last_used_at: civic.now().toISOString() })
      .where("id", "=", key.id)
      .execute();
  } catch {
    return null;
  }
  return (await getAccount(db, key.account_id)) ?? null;
}
