/**
 * The checks of a report's text fields (submit.ts) as JSON Schema patterns, for the API descriptions of the Open311
 * POST and the app endpoint: a client or a generated tester that honours them sends nothing these checks refuse.
 * Patterns are ECMA-262 regular expressions without flags (JSON Schema's dialect); some are stricter than the
 * checks (a `<` before a letter is left out even when no `>` closes it), never looser.
 */

/** Characters no report text holds: C0 controls but tab, LF and CR; DEL; lone UTF-16 surrogates. */
const CONTROL = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F\\uD800-\\uDFFF";
/** One character of plain text: anything but a control character or a `<` that could open a tag. */
const PLAIN = `(?:[^<${CONTROL}]|<[^A-Za-z!?/\\s<${CONTROL}])`;
/** The same, on one line. */
const PLAIN_LINE = `(?:[^<\\n\\r${CONTROL}]|<[^A-Za-z!?/\\s<${CONTROL}])`;
/** White space as trim() removes it, less the two control characters (VT, FF) no text may hold. */
const WS = "[\\t\\n\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]";
/** A first character that is not white space (the checks trim, and an empty value is a missing one). */
const FIRST = `(?:[^\\s<${CONTROL}]|<[^A-Za-z!?/\\s<${CONTROL}])`;

/** Control and invisible format characters of the Basic Multilingual Plane (Unicode Cc and Cf), refused in addresses. */
const INVISIBLE =
  "\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890-\\u0891\\u08E2\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\uFEFF\\uFFF9-\\uFFFB";
/** One character of an address (lone surrogates, and so characters outside the BMP, left out: stricter). */
const ADDRESS_CHAR = `[^\\s@<>()[\\]\\\\,;:"${CONTROL}${INVISIBLE}]`;
/** One label of an address's domain: address characters but the dot, at least one. */
const DOMAIN_LABEL = `[^\\s@<>()[\\]\\\\,;:".${CONTROL}${INVISIBLE}]+`;

export const REPORT_PATTERNS = {
  /**
   * Plain text without HTML tags, possibly empty (an optional field); not ending in `<`, so that first_name and
   * last_name, joined with a space, cannot make a tag either.
   */
  plainText: `^${PLAIN}*$`,
  /** Plain text without HTML tags and with something besides white space (a required field). */
  requiredText: `^${WS}*${FIRST}${PLAIN}*<?$`,
  /** One line of plain text, with something besides white space (a title). */
  requiredLine: `^${WS}*${FIRST}${PLAIN_LINE}*<?$`,
  /**
   * An email address as the check reads it (core/email-address.ts normaliseEmail: white space around it trimmed, no
   * control or invisible character, domain labels not empty, one trailing dot of the domain allowed), or nothing.
   */
  email: `^${WS}*(?:${ADDRESS_CHAR}+@${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})+\\.?${WS}*)?$`,
  /** A phone number: digits, spaces, brackets and dashes, an optional leading +, at least 6 characters; or nothing. */
  phone: `^${WS}*(?:\\+?[0-9()-][0-9 ()-]{4,}[0-9()-]${WS}*)?$`,
} as const;

/** A string's length as JSON Schema's `maxLength` counts it: in Unicode code points, not UTF-16 code units. */
export function textLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * A JSON Schema rule: a body that has the numeric field `given` has `needs` too (lat and long go together). As
 * `if`/`then`, which the server's draft-07 Ajv and OpenAPI 3.1 both read (`dependentRequired` is 2019-09 on); the
 * properties are restated so that linters find what `required` names.
 */
export function togetherRule(given: string, needs: string) {
  return {
    if: { properties: { [given]: { type: "number" } }, required: [given] },
    then: { properties: { [needs]: { type: "number" } }, required: [needs] },
  };
}

/**
 * What a location in words must be when it is the only location: not blank (the checks read a blank field as a
 * missing one). As a field it may be blank, beside a pin or a place.
 */
export const NOT_BLANK = { type: "string", pattern: "\\S" } as const;
