import { daysInMonth } from "../core/calendar.js";
import type { Category } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";

export type AttributeDatatype = "string" | "number" | "datetime" | "text" | "singlevaluelist" | "multivaluelist";

/** An Open311 attribute definition: an extra question a category asks (stored as JSON on the category). */
export interface AttributeDefinition {
  code: string;
  datatype: AttributeDatatype;
  /** false = informational only (shown to the user, no input) */
  variable: boolean;
  required: boolean;
  order: number;
  /** The question as shown to the user. */
  description: string;
  datatypeDescription?: string;
  /** Only for singlevaluelist / multivaluelist */
  values?: { key: string; name: string }[];
}

export type AttributeValue = string | string[];
export type AttributeValues = Record<string, AttributeValue>;

export const MAX_STRING_LENGTH = 500;
export const MAX_TEXT_LENGTH = 4000;

const DATATYPES: readonly AttributeDatatype[] = [
  "string",
  "number",
  "datetime",
  "text",
  "singlevaluelist",
  "multivaluelist",
];

/** The category's attribute definitions, parsed from its JSON column and sorted by `order`. Bad entries are dropped. */
export function categoryAttributes(category: Pick<Category, "attributes">): AttributeDefinition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(category.attributes);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: AttributeDefinition[] = [];
  for (const item of raw) {
    if (!item || typeof item !== "object") continue;
    const a = item as Record<string, unknown>;
    if (typeof a.code !== "string" || !DATATYPES.includes(a.datatype as AttributeDatatype)) continue;
    const values = Array.isArray(a.values)
      ? a.values
          .filter(
            (v): v is { key: string; name: string } =>
              !!v && typeof v === "object" && typeof v.key === "string" && typeof v.name === "string",
          )
          .map((v) => ({ key: v.key, name: v.name }))
      : undefined;
    out.push({
      code: a.code,
      datatype: a.datatype as AttributeDatatype,
      variable: a.variable !== false,
      required: a.required === true,
      order: typeof a.order === "number" ? a.order : out.length + 1,
      description: typeof a.description === "string" ? a.description : a.code,
      ...(typeof a.datatypeDescription === "string" ? { datatypeDescription: a.datatypeDescription } : {}),
      ...(values ? { values } : {}),
    });
  }
  return out.sort((x, y) => x.order - y.order);
}

/** The form / Open311 field name of an attribute: `attribute[<code>]`. */
export function attributeField(code: string): string {
  return `attribute[${code}]`;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// W3C datetime profile of ISO 8601 / RFC 3339, as Open311 uses: a date, optionally a time with an optional zone.
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** True for a W3C/ISO 8601 date or datetime that names a real moment (no 31 February, no hour 25). */
export function isIsoDatetime(value: string): boolean {
  const m = DATETIME.exec(value);
  if (!m) return false;
  const [, y, mo, d, h, mi, s] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > daysInMonth(year, month)) return false;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || (s !== undefined && Number(s) > 59))) return false;
  return true;
}

function asList(value: AttributeValue | undefined): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => v.trim()).filter((v) => v !== "");
}

/**
 * Checks answers to a category's attributes with Open311 semantics and returns them normalised (trimmed, empty
 * answers dropped, lists de-duplicated in the order given). Only `variable` attributes take answers; `required`
 * applies only to them. Unknown codes are problems too, so a typo in an API client does not pass silently.
 */
export function validateAttributes(
  definitions: AttributeDefinition[],
  values: AttributeValues,
): { values: AttributeValues; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const normalised: AttributeValues = {};
  const byCode = new Map(definitions.map((d) => [d.code, d]));

  for (const code of Object.keys(values)) {
    const def = byCode.get(code);
    if (!def) {
      problems.push({ field: attributeField(code), message: "is not a question of this category" });
    } else if (!def.variable && asList(values[code]).length > 0) {
      problems.push({ field: attributeField(code), message: "is information only and takes no answer" });
    }
  }

  for (const def of definitions) {
    if (!def.variable) continue;
    const field = attributeField(def.code);
    const given = asList(values[def.code]);
    if (given.length === 0) {
      if (def.required) problems.push({ field, message: `is required: ${def.description}` });
      continue;
    }
    const keys = new Set((def.values ?? []).map((v) => v.key));
    switch (def.datatype) {
      case "singlevaluelist": {
        if (given.length > 1) problems.push({ field, message: "takes one answer only" });
        else if (!keys.has(given[0] as string)) problems.push({ field, message: "is not one of the listed answers" });
        else normalised[def.code] = given[0] as string;
        break;
      }
      case "multivaluelist": {
        const unique = [...new Set(given)];
        const bad = unique.filter((k) => !keys.has(k));
        if (bad.length > 0) problems.push({ field, message: "contains answers that are not listed" });
        else normalised[def.code] = unique;
        break;
      }
      default: {
        if (given.length > 1) {
          problems.push({ field, message: "takes one answer only" });
          break;
        }
        const value = given[0] as string;
        const problem = checkScalar(def.datatype, value);
        if (problem) problems.push({ field, message: problem });
        else normalised[def.code] = value;
      }
    }
  }
  return { values: normalised, problems };
}

function checkScalar(datatype: AttributeDatatype, value: string): string | null {
  switch (datatype) {
    case "number":
      return DECIMAL.test(value) && Number.isFinite(Number(value)) ? null : "must be a number, e.g. 12 or 3.5";
    case "datetime":
      return isIsoDatetime(value) ? null : "must be a date and time such as 2026-11-22T14:30:00Z";
    case "string":
      // The standard's `string` is one line of text (an <input>); `text` is the multi-line datatype.
      if (/[\r\n]/.test(value)) return "must be one line of text (datatype string)";
      return value.length <= MAX_STRING_LENGTH ? null : `must be at most ${MAX_STRING_LENGTH} characters`;
    case "text":
      return value.length <= MAX_TEXT_LENGTH ? null : `must be at most ${MAX_TEXT_LENGTH} characters`;
    default:
      return null;
  }
}
