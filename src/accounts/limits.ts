import type { WindowLimit } from "../core/limits/fixed-window.js";

const MINUTE = 60_000;

/**
 * Brute-force limits of the accounts feature. Each applies per email address and per client address; the answer
 * when one is exceeded is the same for addresses with and without an account. Messages to one address are capped
 * by the mail policy (core/mail/policy.ts), per client and for everyone together.
 */
export const LIMITS = {
  /** Messages asked for from one client, whatever the addresses. */
  mailPerClient: { name: "account-mail-client", max: 20, windowMs: 60 * MINUTE },
  /** Password attempts against one address. */
  passwordPerEmail: { name: "account-password-email", max: 10, windowMs: 15 * MINUTE },
  /** Password, code and passkey attempts from one client. */
  attemptsPerClient: { name: "account-attempts-client", max: 50, windowMs: 15 * MINUTE },
  /** Personal-data downloads (zip archives) of one person: the account, or the address of a /my-data link. */
  downloadsPerSubject: { name: "data-download-subject", max: 10, windowMs: 60 * MINUTE },
  /** Personal-data downloads asked for from one client, whoever they are for. */
  downloadsPerClient: { name: "data-download-client", max: 20, windowMs: 60 * MINUTE },
} satisfies Record<string, WindowLimit>;

export const LIMIT_MESSAGE = "Too many attempts from here or for this address.";

export const DOWNLOAD_LIMIT_MESSAGE = "You have downloaded your data many times in the last hour.";
