import { Type } from "typebox";
import { AppError } from "./errors.js";

/**
 * The one id parser. Every table's id is an `integer` column (see db/migrations/helpers.ts, idColumn), which
 * PostgreSQL holds in 32 bits: a larger number sent to it is an error there (a 500 before this parser), while
 * SQLite quietly finds nothing. So an id from a request is a whole number from 1 to MAX_ID, written as plain digits,
 * or it names nothing:
 *
 * - a path parameter uses `IdParam` (or `IdParams`); a value that does not fit is a 404, in the route family's
 *   format, since no item can be at that address (see error-handler.tsx, params validation);
 * - a form field uses `formId` (a 400 naming the field) or `parseId` (null) where an unknown id is simply ignored;
 * - a composite value such as `newsletter:12` uses `parseKeyedId`.
 */

/** The largest value of an `integer` id column on PostgreSQL (2^31 - 1). */
export const MAX_ID = 2_147_483_647;

/** Plain decimal digits without a leading zero, at most as many as MAX_ID has. */
const ID_TEXT = /^[1-9][0-9]{0,9}$/;

/** A path parameter that is an id. Ajv turns the text into a number; out of range or not whole is a 404. */
export const IdParam = Type.Integer({ minimum: 1, maximum: MAX_ID, description: "A row id (1 to 2147483647)." });

/** Path parameters `{ id }` for routes such as /ideas/:id. */
export const IdParams = Type.Object({ id: IdParam });

/** The id written in `raw`, or null when it cannot name a row (not plain digits, zero, or past MAX_ID). */
export function parseId(raw: unknown): number | null {
  if (typeof raw === "number") return Number.isInteger(raw) && raw >= 1 && raw <= MAX_ID ? raw : null;
  if (typeof raw !== "string" || !ID_TEXT.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_ID ? id : null;
}

/** The id in the form field `field`, or a 400 naming that field. */
export function formId(raw: unknown, field: string): number {
  const id = parseId(typeof raw === "string" ? raw.trim() : raw);
  if (id === null) throw badId(field);
  return id;
}

/** A 400 for a form field that does not hold an id. */
export function badId(field: string): AppError {
  return new AppError("validation_failed", `The request is not valid: ${field} is not a valid id.`, {
    fields: [{ field, message: "is not a valid id" }],
  });
}

/** A composite value `key:id` (a consent such as `newsletter:12`): its key and id, or null when it is not one. */
export function parseKeyedId(raw: string): { key: string; id: number } | null {
  const m = /^([A-Za-z][A-Za-z0-9_-]{0,39}):([^:]*)$/.exec(raw);
  if (!m?.[1]) return null;
  const id = parseId(m[2]);
  return id === null ? null : { key: m[1], id };
}
