import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { findOrCreateAccount, setRole } from "../../src/accounts/repository.js";
import { createSession, sessionCookieName } from "../../src/accounts/sessions.js";
import type { Role } from "../../src/core/db/schema.js";

/** A signed-in person for app.inject: an account with a role and a session made directly (no sign-in mail). */
export interface SignedIn {
  accountId: string;
  email: string;
  /** The Cookie header value. */
  cookie: string;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form with this session's form token (taken from `page`, default /account) plus `fields`. */
  post(url: string, fields?: Record<string, string>, page?: string): Promise<LightMyRequestResponse>;
  /** A form token bound to this session, from `page`. */
  token(page?: string): Promise<string>;
}

export async function signInAs(app: FastifyInstance, email: string, role: Role): Promise<SignedIn> {
  const civic = app.civic;
  const account = await findOrCreateAccount(civic.database.db, email, civic.now());
  if (role !== account.role) await setRole(civic.database.db, account.id, role, civic.now());
  const token = await createSession(civic, account.id, "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0");
  const cookie = `${sessionCookieName(civic.config.baseUrl)}=${token}`;
  const get = (url: string) => app.inject({ method: "GET", url, headers: { cookie } });
  const tokenFrom = async (page = "/account") => {
    const res = await get(page);
    const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (!m?.[1]) throw new Error(`no form token on ${page} (status ${res.statusCode})`);
    return m[1];
  };
  return {
    accountId: account.id,
    email: account.email,
    cookie,
    get,
    token: tokenFrom,
    async post(url, fields = {}, page) {
      const csrf = await tokenFrom(page ?? "/account");
      return app.inject({
        method: "POST",
        url,
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
    },
  };
}
