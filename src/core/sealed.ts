import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Secrets the platform must use later but a database dump alone must not reveal (a council's Open311 API key):
 * sealed with AES-256-GCM under a key derived (HKDF-SHA256, per purpose) from a secret that lives outside the
 * database: FORWARDING_SECRET, or SESSION_SECRET when it is given in the environment. A SESSION_SECRET the app
 * generated is kept in the database itself, so it cannot protect anything in a dump: then there is no sealing key
 * and such secrets cannot be stored (config.ts, `forwarding.secret`). Changing the secret makes sealed values
 * unreadable: they are entered again.
 */
const VERSION = "v1";

function keyFor(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "civic-sealed", purpose, 32));
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to `purpose`. */
export function seal(secret: string, purpose: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secret, purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The sealed value, or null when it was sealed under another secret or purpose, or is damaged. */
export function unseal(secret: string, purpose: string, sealed: string): string | null {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(secret, purpose), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
