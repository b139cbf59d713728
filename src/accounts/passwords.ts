import { hash, verify } from "@node-rs/argon2";
import { isCommonPassword } from "./common-passwords.js";

export const PASSWORD_MIN = 10;
/** Hashing work grows with length; nobody needs more. */
export const PASSWORD_MAX = 200;

/** Why a new password is refused, in words for the form, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if ([...password].length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase().trim();
  const local = email.split("@")[0] ?? "";
  if (lower === email.toLowerCase() || (local.length >= 4 && lower.includes(local.toLowerCase()))) {
    return "Do not use your email address in your password";
  }
  if (isCommonPassword(password)) return "This password is too common and easy to guess. Choose another one";
  return null;
}

/** argon2id (OWASP's recommended parameters: 19 MiB, 2 passes, 1 lane). */
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** A hash to verify against when the account has none, so a miss costs as long as a hit. */
let dummyHash: Promise<string> | null = null;

export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length === 0 || password.length > PASSWORD_MAX) return false;
  if (stored === null) {
    dummyHash ??= hashPassword("no account has this password");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
