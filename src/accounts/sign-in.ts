import type { Civic } from "../core/context.js";
import type { Account } from "../core/db/schema.js";
import { sendChallengeMail } from "./challenge-mail.js";
import { checkCode, useSignInLink } from "./challenges.js";
import { LIMIT_MESSAGE, LIMITS } from "./limits.js";
import { signInMail } from "./mails.js";
import { checkPassword } from "./passwords.js";
import { findAccountByEmail, findOrCreateAccount } from "./repository.js";

/**
 * Sends a sign-in message (link + code) to an address, whether or not it has an account: the answer never tells.
 * Returns the handle the "check your email" page carries for the code form.
 */
export async function requestSignInMail(civic: Civic, email: string, client: string, next = ""): Promise<string> {
  // Where to go after signing in (a local path, checked by the caller) travels in the link, outside the token.
  const after = next ? `?next=${encodeURIComponent(next)}` : "";
  return sendChallengeMail(civic, {
    purpose: "sign-in",
    email,
    accountId: null,
    client,
    linkPath: "/sign-in/link",
    compose: (link, code) => signInMail(civic.site, email, `${link}${after}`, code),
  });
}

export type SignInOutcome =
  | { kind: "signed-in"; account: Account }
  | { kind: "suspended"; reason: string | null }
  | { kind: "failed"; message: string };

function accountOutcome(account: Account): SignInOutcome {
  return account.suspended_at
    ? { kind: "suspended", reason: account.suspended_reason }
    : { kind: "signed-in", account };
}

export const EXPIRED_LINK = "This sign-in link has expired or has already been used. Ask for a new one below.";

/** The POST from the page a sign-in link opens: uses the link up and signs in (creating the account the first time). */
export async function signInWithLink(civic: Civic, token: unknown, client: string): Promise<SignInOutcome> {
  await civic.limits.enforce([[LIMITS.attemptsPerClient, client]], LIMIT_MESSAGE);
  const db = civic.database.db;
  const now = civic.now();
  const link = await useSignInLink(db, token, now);
  if (!link) return { kind: "failed", message: EXPIRED_LINK };
  return accountOutcome(await findOrCreateAccount(db, link.email, now));
}

/** A code typed on the page that sent the message. */
export async function signInWithCode(
  civic: Civic,
  handle: unknown,
  code: string,
  client: string,
): Promise<SignInOutcome> {
  await civic.limits.enforce([[LIMITS.attemptsPerClient, client]], LIMIT_MESSAGE);
  const db = civic.database.db;
  const now = civic.now();
  const outcome = await checkCode(db, civic.config.sessionSecret, handle, code.replace(/\s+/g, ""), now);
  if (!outcome.ok) {
    return {
      kind: "failed",
      message:
        outcome.reason === "wrong"
          ? "That code is not right. Check the message and type the 6 digits again"
          : "This code no longer works (it was used, is older than 30 minutes, or was typed wrongly 5 times). Ask for a new one",
    };
  }
  return accountOutcome(await findOrCreateAccount(db, outcome.challenge.email, now));
}

export const WRONG_PASSWORD = "The email address or the password is not right";

export async function signInWithPassword(
  civic: Civic,
  email: string,
  password: string,
  client: string,
): Promise<SignInOutcome> {
  await civic.limits.enforce(
    [
      [LIMITS.passwordPerEmail, email],
      [LIMITS.attemptsPerClient, client],
    ],
    LIMIT_MESSAGE,
  );
  const account = await findAccountByEmail(civic.database.db, email);
  if (!(await checkPassword(account?.password_hash ?? null, password)) || !account) {
    return { kind: "failed", message: WRONG_PASSWORD };
  }
  return accountOutcome(account);
}
