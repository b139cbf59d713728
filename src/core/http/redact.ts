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

/** Length of an at sign at `i`: 1 for `@`, 3 for `%40`, 0 when there is none. */
function atSignAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === AT) return 1;
  if (c === PERCENT && text.charCodeAt(i + 1) === 52 && text.charCodeAt(i + 2) === 48) return 3;
  return 0;
}

/**
 * Replaces anything that looks like an email address (`local@domain.tld`, also with `%40`) by `[email]`.
 *
 * Linear: one pass keeps the start of the current run of local-part characters, so each at sign finds its local
 * part in O(1), and its domain is scanned once (a domain run ends at the next `@` or `%`, so runs never overlap).
 * With `openEnd` (the text was cut), an address running into the end of the text is redacted even without its
 * top-level domain, so a cut never leaves half an address behind.
 */
export function redactEmails(text: string, openEnd = false): string {
  // Fast path: most log strings hold no at sign at all.
  if (!text.includes("@") && !text.includes("%40")) return text;
  let out = "";
  let copied = 0; // text before this index is already in `out`
  let runStart = 0; // start of the current run of local-part characters
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const at = atSignAt(text, i);
    if (at > 0 && i > runStart) {
      // Domain: the longest run of domain characters; the address ends after the last ".letters" in it.
      const d0 = i + at;
      let j = d0;
      let end = -1;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c >= 128 || DOMAIN[c] === 0) break;
        if (c === 46 && j > d0 && isLetter(text.charCodeAt(j + 1)) && isLetter(text.charCodeAt(j + 2))) {
          let k = j + 3;
          while (k < n && isLetter(text.charCodeAt(k))) k++;
          end = k;
        }
        j++;
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

/**
 * Query or form parameters whose values are credentials: the Open311 `api_key` and the usual names of tokens,
 * secrets and passwords. Only literal names and a value without `&`, so the pattern cannot backtrack.
 */
const SECRET_PARAM =
  /(^|[?&;\s"'])(api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|auth|secret|client[_-]?secret|password|passwd|pwd|signature|sig|session|_csrf)=[^&;#\s"']*/gi;

/** Replaces the value of every secret-looking parameter (`api_key=…`, `token=…`, …) in a URL or text. */
export function redactSecrets(text: string): string {
  if (!text.includes("=")) return text;
  return text.replace(SECRET_PARAM, "$1$2=[redacted]");
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
