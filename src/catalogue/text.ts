import { AppError, type FieldProblem } from "../core/http/errors.js";

// Control characters (tab and line breaks are handled by the callers that allow them).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
export const CONTROL_ONE_LINE = /[\u0000-\u001f\u007f]/;

/** Collects field problems for a form; `fail()` throws them as one validation error when there are any. */
export class Problems {
  readonly list: FieldProblem[] = [];

  add(field: string, message: string): void {
    if (!this.list.some((p) => p.field === field)) this.list.push({ field, message });
  }

  /** A required or optional one-line text: trimmed, no control characters, at most `max` characters. */
  line(field: string, value: string, max: number, label: string, required = true): string {
    const v = value.trim();
    if (!v) {
      if (required) this.add(field, `Enter ${label}.`);
    } else if (v.length > max) this.add(field, `${capital(label)} must be at most ${max} characters.`);
    else if (CONTROL_ONE_LINE.test(v)) this.add(field, `${capital(label)} must be one line of plain text.`);
    return v;
  }

  /** A multi-line text (line breaks allowed). */
  text(field: string, value: string, max: number, label: string, required = true): string {
    const v = value.replace(/\r\n?/g, "\n").trim();
    if (!v) {
      if (required) this.add(field, `Enter ${label}.`);
    } else if (v.length > max) this.add(field, `${capital(label)} must be at most ${max} characters.`);
    else if (CONTROL.test(v)) this.add(field, `${capital(label)} must be plain text.`);
    return v;
  }

  fail(): void {
    if (this.list.length === 0) return;
    throw new AppError("validation_failed", "The form has problems.", { fields: this.list });
  }
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Codes (service codes, question codes, answer keys): lower-case letters, digits and underscores. */
export const CODE_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;
export const CODE_RULE = "Use 1 to 40 lower-case letters, digits and underscores, starting with a letter.";

/** Actions that take something away say why: a validation error on `field` when the reason is empty. */
export function requireReason(reason: string, field: string): void {
  const p = new Problems();
  if (!reason.trim()) p.add(field, "Give a reason: it goes in the audit log.");
  p.fail();
}
