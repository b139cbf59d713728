import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { Type } from "typebox";

/** A random secret for links, cookies and handles: 32 bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What the database keeps instead of a token: its sha256. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** A 6-digit code, every digit equally likely. */
export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, "0");
}

/** A keyed hash, for values too short to store as a plain hash (codes) or that must not be linkable. */
export function keyedHash(secret: string, purpose: string, value: string): string {
  return createHmac("sha256", secret).update(`${purpose}:${value}`).digest("base64url");
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Path parameters `{ token }` of the pages an emailed link opens (/ideas/confirm/:token and the like). Tokens are 43
 * characters (newToken); past 200 the address is a 404 before any handler, anything shorter is the handler's to refuse.
 */
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });

/** Tokens we hand out are base64url of 32 bytes; anything else is refused before touching the database. */
export function looksLikeToken(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
}
