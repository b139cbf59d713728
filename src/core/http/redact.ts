const EMAIL = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** Replaces anything that looks like an email address (also URL-encoded) so logs never carry one. */
export function redactEmails(text: string): string {
  return text.replace(EMAIL, "[email]");
}

/** Deep copy of a log object with every string passed through redactEmails. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactEmails(value);
  if (value === null || typeof value !== "object" || depth > 6) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (value instanceof Error) {
    return { type: value.name, message: redactEmails(value.message), stack: redactEmails(value.stack ?? "") };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth + 1);
  return out;
}
