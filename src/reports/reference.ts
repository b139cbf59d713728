import { randomInt } from "node:crypto";
import { Type } from "typebox";

/**
 * Crockford base32 without the letters that read ambiguously (I, L, O, U are already out) and without "D", so a
 * generated reference can never look like a demo reference ("DEMO-0001"). 31 symbols, 8 of them: ~8.5e11 values.
 */
export const REFERENCE_ALPHABET = "0123456789ABCEFGHJKMNPQRSTVWXYZ";

const PATTERN = new RegExp(`^[${REFERENCE_ALPHABET}]{4}-[${REFERENCE_ALPHABET}]{4}$`);

/** Path parameters `{ reference }` of a report's pages: references are 9 characters; past 40 the address is a 404. */
export const ReferenceParams = Type.Object({ reference: Type.String({ maxLength: 40 }) });

/** A new random reference such as "K7QM-3X9P". */
export function newReference(random: (max: number) => number = randomInt): string {
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === 4) out += "-";
    out += REFERENCE_ALPHABET[random(REFERENCE_ALPHABET.length)];
  }
  return out;
}

/**
 * Normalises what a person typed (lower case, spaces, missing dash, O for 0, I/L for 1) into the stored form.
 * Returns the input upper-cased and trimmed when it does not look like a generated reference (e.g. demo ones).
 */
export function normaliseReference(input: string): string {
  const compact = input
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, "");
  if (/^DEMO\d{4}$/.test(compact)) return `DEMO-${compact.slice(4)}`;
  const mapped = compact.replace(/O/g, "0").replace(/[IL]/g, "1");
  if (mapped.length === 8) {
    const dashed = `${mapped.slice(0, 4)}-${mapped.slice(4)}`;
    if (PATTERN.test(dashed)) return dashed;
  }
  return input.trim().toUpperCase();
}

/** True when the string has the shape of a reference (generated or demo). */
export function looksLikeReference(value: string): boolean {
  return PATTERN.test(value) || /^DEMO-\d{4}$/.test(value);
}

/** Whether an insert failed on a unique constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (e.code === "23505" || e.code === "SQLITE_CONSTRAINT_UNIQUE") return true;
  return false;
}
