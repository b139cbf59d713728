import type { PhotoInput } from "../core/media/images.js";
import type { ReceivedFile } from "../core/media/uploads.js";

/**
 * A browser form body read the same way whether it came as multipart (with files) or urlencoded: every field as a
 * list of strings, files (already in the upload store, see core/media/uploads.ts) by field name.
 */
export interface FormBody {
  fields: Record<string, string[]>;
  files: Record<string, (PhotoInput & { filename: string })[]>;
}

export function readFormBody(body: unknown, received: ReceivedFile[] = []): FormBody {
  const out: FormBody = { fields: {}, files: {} };
  for (const f of received) (out.files[f.field] ??= []).push({ path: f.path, size: f.size, filename: f.filename });
  if (!body || typeof body !== "object") return out;
  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      // A number: a field that a route's schema declares numeric (the app endpoint's lat and lng), which its
      // schema check coerced in place.
      if (typeof item === "string" || typeof item === "number") (out.fields[name] ??= []).push(String(item));
    }
  }
  return out;
}

/** The first value of a field, or "" when it is missing. */
export function first(form: FormBody, name: string): string {
  return form.fields[name]?.[0] ?? "";
}
