/**
 * Reads a browser form body the same way whether it came as multipart (with files) or urlencoded: every field as a
 * list of strings, files as buffers. @fastify/multipart with attachFieldsToBody gives `{ value }` parts (an array of
 * them for repeated names) and file parts with `toBuffer()`.
 */
export interface FormBody {
  fields: Record<string, string[]>;
  files: Record<string, { filename: string; data: Buffer }[]>;
}

interface FilePart {
  type: "file";
  filename?: string;
  toBuffer(): Promise<Buffer>;
}

function isFilePart(v: unknown): v is FilePart {
  return (
    !!v &&
    typeof v === "object" &&
    (v as { type?: unknown }).type === "file" &&
    typeof (v as { toBuffer?: unknown }).toBuffer === "function"
  );
}

export async function readFormBody(body: unknown): Promise<FormBody> {
  const out: FormBody = { fields: {}, files: {} };
  if (!body || typeof body !== "object") return out;
  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    const items = Array.isArray(raw) ? raw : [raw];
    for (const item of items) {
      if (isFilePart(item)) {
        const data = await item.toBuffer();
        // A file input left empty still sends a part with no name and no bytes.
        if (data.length === 0 && !item.filename) continue;
        (out.files[name] ??= []).push({ filename: item.filename ?? "", data });
      } else if (typeof item === "string") {
        (out.fields[name] ??= []).push(item);
      } else if (item && typeof item === "object" && "value" in item) {
        const value = (item as { value: unknown }).value;
        if (typeof value === "string") (out.fields[name] ??= []).push(value);
      }
    }
  }
  return out;
}

/** The first value of a field, or "" when it is missing. */
export function first(form: FormBody, name: string): string {
  return form.fields[name]?.[0] ?? "";
}
