/**
 * Redaction for logs: email addresses (also URL-encoded) and secret query parameters (`api_key=…`, tokens) never
 * reach a log line, and no logged string is longer than a bound. Everything here is one left-to-right pass over
 * at most the bounded prefix of the input, so a hostile 1 MB URL costs no more than a 2 KB one.
 */

/** Longest string (URL, message, field) written to a log; longer ones are cut and marked. */
export const MAX_LOGGED_CHARS = 2048;
/** Stacks get more room: their frames are our own code, not user input. */
export const MAX_LOGGED_STACK_CHARS = 8192;

/** Characters of the local part of an address, as the old pattern had them: [A-Za-z0-9._%+-]. */
const LOCAL = new Uint8Array(128);
/** Characters of a domain: [A-Za-z0-9.-]. */
const DOMAIN = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9.-]/.test(ch)) DOMAIN[c] = 1;
  if (/[A-Za-z0-9._%+-]/.test(ch)) LOCAL[c] = 1;
}
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const AT = 64;
const PERCENT = 37;

/** How many times a character may have been percent-encoded over itself (`%40`, `%2540`, `%252540`, …) and still be read. */
const MAX_ENCODINGS = 4;

/**
 * Length of the percent-encoding at `i` of the character whose code is `hex` (two upper-case hex digits), encoded
 * once or up to MAX_ENCODINGS times (`%2E`, `%252E`, …; hex digits in either case); 0 when there is none.
 */
function encodedAt(text: string, i: number, hex: string): number {
  if (text.charCodeAt(i) !== PERCENT) return 0;
  let j = i + 1;
  for (let k = 1; k < MAX_ENCODINGS && text.charCodeAt(j) === 50 && text.charCodeAt(j + 1) === 53; k++) j += 2;
  const a = text.charCodeAt(j);
  const b = text.charCodeAt(j + 1) & ~32; // upper case for letters
  if (a === hex.charCodeAt(0) && b === (hex.charCodeAt(1) & ~32)) return j + 2 - i;
  // `%25` read as a literal "%" before "40" (`%2540`) is the case the loop above took; a bare `%25` is no match.
  return 0;
}

/** Length of an at sign at `i`: 1 for `@`, 3 for `%40`, more for `%2540` and further encodings; 0 when there is none. */
function atSignAt(text: string, i: number): number {
  return text.charCodeAt(i) === AT ? 1 : encodedAt(text, i, "40");
}

/** Length of a dot at `i`, literal or percent-encoded (`%2E`, `%252E`, …); 0 when there is none. */
function dotAt(text: string, i: number): number {
  return text.charCodeAt(i) === 46 ? 1 : encodedAt(text, i, "2E");
}

/**
 * Replaces anything that looks like an email address (`local@domain.tld`, also with the at sign and the dots
 * percent-encoded, once or several times over: `%40`, `%2540`, `%2E`) by `[email]`.
 *
 * Linear: one pass keeps the start of the current run of local-part characters, so each at sign finds its local
 * part in O(1), and its domain is scanned once (a domain run ends at the next at sign or at a `%` that encodes no
 * dot or hyphen, so runs never overlap). With `openEnd` (the text was cut), an address running into the end of the
 * text is redacted even without its top-level domain, so a cut never leaves half an address behind.
 */
export function redactEmails(text: string, openEnd = false): string {
  // Fast path: most log strings hold no at sign at all, plain or encoded (`%40`, `%2540`, …).
  if (!text.includes("@") && !text.includes("%40") && !text.includes("540")) return text;
  let out = "";
  let copied = 0; // text before this index is already in `out`
  let runStart = 0; // start of the current run of local-part characters
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const at = atSignAt(text, i);
    if (at > 0 && i > runStart) {
      // Domain: the longest run of domain characters (dots and hyphens also encoded); the address ends after the
      // last ".letters" in it.
      const d0 = i + at;
      let j = d0;
      let end = -1;
      while (j < n) {
        const c = text.charCodeAt(j);
        const dot = dotAt(text, j);
        const step = dot > 0 ? dot : c === PERCENT ? encodedAt(text, j, "2D") : 1;
        if (step === 0 || c >= 128 || (c !== PERCENT && DOMAIN[c] === 0)) break;
        if (dot > 0 && j > d0 && isLetter(text.charCodeAt(j + dot)) && isLetter(text.charCodeAt(j + dot + 1))) {
          let k = j + dot + 2;
          while (k < n && isLetter(text.charCodeAt(k))) k++;
          end = k;
        }
        j += step;
      }
      if (end < 0 && openEnd && j === n && j > d0) end = n;
      if (end > 0) {
        out += `${text.slice(copied, runStart)}[email]`;
        copied = end;
        runStart = end;
        i = end - 1;
        continue;
      }
    }
    const c = text.charCodeAt(i);
    if (c >= 128 || LOCAL[c] === 0) runStart = i + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The names of query or form parameters whose values are credentials (a regular expression's source). */
const SECRET_NAMES =
  "api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|auth|secret|client[_-]?secret|password|passwd|pwd|signature|sig|session|_csrf";

/**
 * Query or form parameters whose values are credentials: the Open311 `api_key` and the usual names of tokens,
 * secrets and passwords. Only literal names and a value without `&`, so the pattern cannot backtrack.
 */
const SECRET_PARAM = new RegExp(`(^|[?&;\\s"'])(${SECRET_NAMES})=[^&;#\\s"']*`, "gi");

/** A decoded parameter name that is one of SECRET_NAMES (also as a list, `token[]`). */
const SECRET_NAME = new RegExp(`^(?:${SECRET_NAMES})(?:\\[\\])?$`, "i");

/**
 * Parameters whose name has a percent-encoding in it (`%74oken=`, `api%5Fkey=`): the first class has no `%` and
 * the second ends at a character neither has, so each run is read once.
 */
const ENCODED_PARAM = /(^|[?&;\s"'])([A-Za-z0-9_.+[\]-]*%[A-Za-z0-9_.%+[\]-]*)=[^&;#\s"']*/g;

const PERCENT_BYTE = /%([0-9A-Fa-f]{2})/g;

/**
 * `text` with its percent-encodings of ASCII characters decoded, again and again while that changes it, at most
 * MAX_ENCODINGS times (`%2574` → `%74` → `t`). Never throws, whatever the encodings (a broken one is left as is).
 */
export function decodeRepeatedly(text: string): string {
  let s = text;
  for (let k = 0; k < MAX_ENCODINGS && s.includes("%"); k++) {
    const next = s.replace(PERCENT_BYTE, (m, hex: string) => {
      const code = parseInt(hex, 16);
      return code < 128 ? String.fromCharCode(code) : m;
    });
    if (next === s) break;
    s = next;
  }
  return s;
}

/**
 * Replaces the value of every secret-looking parameter (`api_key=…`, `token=…`, …) in a URL or text, also when its
 * name is percent-encoded (`%74oken=…`, once or several times over), as the query parser reads it.
 */
export function redactSecrets(text: string): string {
  if (!text.includes("=")) return text;
  const plain = text.replace(SECRET_PARAM, "$1$2=[redacted]");
  if (!plain.includes("%")) return plain;
  return plain.replace(ENCODED_PARAM, (match, before: string, name: string) =>
    SECRET_NAME.test(decodeRepeatedly(name)) ? `${before}${name}=[redacted]` : match,
  );
}

/**
 * Replaces the values of the query parameters called one of `names` (their names also decoded) in `query` (the part
 * of a URL from its `?`). For the secrets a route declares beyond the usual names (core/http/secret-paths.ts).
 */
export function redactNamedParams(query: string, names: readonly string[]): string {
  return query.replace(/([?&;])([^=&;#]{1,100})=[^&;#]*/g, (match, before: string, name: string) =>
    names.includes(decodeRepeatedly(name)) ? `${before}${name}=[redacted]` : match,
  );
}

/** Is this object key the name of a secret (its value is then never logged)? */
export function isSecretName(name: string): boolean {
  return /^(api[_-]?key|apikey|x-api-key|authorization|cookie|access[_-]?token|refresh[_-]?token|token|secret|client[_-]?secret|password|passwd|_csrf)$/i.test(
    name,
  );
}

/**
 * A string as it may be logged: at most `max` characters (a cut is marked with how much was left out), then
 * without email addresses or secret parameter values. Linear in `max`, whatever the input's length.
 */
export function forLog(text: string, max = MAX_LOGGED_CHARS): string {
  if (text.length <= max) return redactSecrets(redactEmails(text));
  const kept = redactSecrets(redactEmails(text.slice(0, max), true));
  return `${kept}…[truncated ${text.length - max} chars]`;
}

/** Deep copy of a log object with every string passed through forLog and secret fields' values replaced. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return forLog(value);
  if (value === null || typeof value !== "object" || depth > 6) return value;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redactDeep(v, depth + 1));
  if (value instanceof Error) {
    return {
      type: value.name,
      message: forLog(value.message),
      stack: forLog(value.stack ?? "", MAX_LOGGED_STACK_CHARS),
    };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? "[redacted]" : redactDeep(v, depth + 1);
  return out;
}
