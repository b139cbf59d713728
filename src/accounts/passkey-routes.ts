import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { notFound } from "../core/http/errors.js";
import { can } from "../core/policy.js";
import { LIMIT_MESSAGE, LIMITS } from "./limits.js";
import { isRateLimited, safeNext } from "./page.js";
import {
  authenticationOptions,
  PASSKEY_NAME_MAX,
  registerPasskey,
  registrationOptions,
  verifyPasskeySignIn,
} from "./passkeys.js";
import { cleanName } from "./account-service.js";
import { getAccount } from "./repository.js";
import { signedInRecently, SIGN_IN_AGAIN, signInAgainPath } from "./security.js";
import { startSession } from "./sessions.js";
import { requestClient } from "../core/http/client-address.js";

/** JSON bodies of the passkey ceremonies; `_csrf` is checked by the app's form check like any form. */
const CEREMONY = Type.Object(
  {
    _csrf: Type.String({ maxLength: 200 }),
    handle: Type.Optional(Type.String({ maxLength: 100 })),
    response: Type.Optional(Type.Unknown()),
    name: Type.Optional(Type.String({ maxLength: 500 })),
    next: Type.Optional(Type.String({ maxLength: 600 })),
  },
  { additionalProperties: false },
);

function refuse(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).header("cache-control", "no-store").send({ error: message });
}

/** A fresh form token for the ceremony's second request (form tokens may be single-use). */
function nextToken(request: FastifyRequest): string {
  return request.viewer ? request.viewer.formToken() : request.server.civic.formTokens.issue();
}

/** Passkey registration (signed in) and passkey sign-in; used by the passkeys.js bundle. */
export async function passkeyRoutes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const civic = app.civic;
  const limited = async (reply: FastifyReply, client: string) => {
    try {
      await civic.limits.enforce([[LIMITS.attemptsPerClient, client]], LIMIT_MESSAGE);
      return false;
    } catch (error) {
      if (!isRateLimited(error)) throw error;
      reply.header("retry-after", error.headers["retry-after"] ?? "60");
      return true;
    }
  };

  /** Adding a passkey is a sensitive change: it needs a recent sign-in (security.ts). */
  const notRecent = (request: FastifyRequest, reply: FastifyReply) =>
    request.viewer && !signedInRecently(civic, request.viewer)
      ? reply.code(403).header("cache-control", "no-store").send({ error: SIGN_IN_AGAIN, redirect: signInAgainPath() })
      : null;

  app.post("/account/passkeys/options", { schema: { hide: true, body: CEREMONY } }, async (request, reply) => {
    if (!request.viewer || !can(request.viewer, "signed-in")) return refuse(reply, 401, "Please sign in again.");
    const stale = notRecent(request, reply);
    if (stale) return stale;
    const account = await getAccount(civic.database.db, request.viewer.accountId);
    if (!account) throw notFound();
    return reply
      .header("cache-control", "no-store")
      .send({ ...(await registrationOptions(civic, account)), csrf: nextToken(request) });
  });

  app.post("/account/passkeys", { schema: { hide: true, body: CEREMONY } }, async (request, reply) => {
    if (!request.viewer || !can(request.viewer, "signed-in")) return refuse(reply, 401, "Please sign in again.");
    const stale = notRecent(request, reply);
    if (stale) return stale;
    const { body } = request;
    const name = cleanName(body.name ?? "").slice(0, PASSKEY_NAME_MAX);
    const problem = await registerPasskey(civic, request.viewer, body.handle, body.response, name);
    if (problem) return refuse(reply, 400, problem);
    return reply.header("cache-control", "no-store").send({ ok: true });
  });

  app.post("/sign-in/passkey/options", { schema: { hide: true, body: CEREMONY } }, async (request, reply) => {
    if (await limited(reply, requestClient(request))) return refuse(reply, 429, LIMIT_MESSAGE);
    return reply
      .header("cache-control", "no-store")
      .send({ ...(await authenticationOptions(civic)), csrf: nextToken(request) });
  });

  app.post("/sign-in/passkey", { schema: { hide: true, body: CEREMONY } }, async (request, reply) => {
    if (await limited(reply, requestClient(request))) return refuse(reply, 429, LIMIT_MESSAGE);
    const { body } = request;
    const account = await verifyPasskeySignIn(civic, body.handle, body.response);
    if (!account) return refuse(reply, 400, "That passkey did not work here. Try again, or sign in by email.");
    if (account.suspended_at) {
      return refuse(reply, 403, "This account is suspended. Sign in by email to see why and how to appeal.");
    }
    await startSession(civic, request, reply, account.id);
    return reply.header("cache-control", "no-store").send({ redirect: safeNext(body.next ?? "") || "/account" });
  });
}
