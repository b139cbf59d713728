import { randomBytes } from "node:crypto";
import { keyedHash, safeEqual } from "../core/tokens.js";

/**
 * Form tokens for signed-in people. The token has the shape of an ordinary form token (issued-at, nonce, MAC of
 * both), so every existing check (signature, age, minimum fill time, single use) works on it unchanged; in addition
 * its nonce carries a MAC over the session's token hash, so a token issued to one session (or to an anonymous
 * visitor) is refused for another.
 */
const RANDOM_LENGTH = 12;

function nonceMac(secret: string, sessionKey: string, issued: string, random: string): string {
  return keyedHash(secret, "session-form", `${sessionKey}:${issued}:${random}`).slice(0, 22);
}

/** Same signature as FormTokens in core/http/csrf.ts. */
function formSignature(secret: string, payload: string): string {
  return keyedHash(secret, "form", payload);
}

export function issueSessionFormToken(secret: string, sessionKey: string, nowMs: number): string {
  const issued = nowMs.toString(36);
  const random = randomBytes(9).toString("base64url");
  const payload = `${issued}.${random}${nonceMac(secret, sessionKey, issued, random)}`;
  return `${payload}.${formSignature(secret, payload)}`;
}

export function isSessionFormToken(secret: string, sessionKey: string, token: unknown): boolean {
  if (typeof token !== "string" || token.length > 200) return false;
  const parts = token.split(".");
  if (parts.length !== 3) return false;
  const [issued, nonce] = parts as [string, string, string];
  if (nonce.length !== RANDOM_LENGTH + 22) return false;
  const random = nonce.slice(0, RANDOM_LENGTH);
  return safeEqual(nonce.slice(RANDOM_LENGTH), nonceMac(secret, sessionKey, issued, random));
}
