import type { FieldProblem } from "../core/http/errors.js";
import { parseCsv } from "./csv.js";
import { type BusinessInput, DAYS, parseBusiness } from "./model.js";

/**
 * Reading import files: the canonical JSON export (a schema.org ItemList of ListItems, or a plain array of
 * business objects) and CSV. Every record is validated; every problem is reported with where it is.
 */

export type ImportFormat = "json" | "csv";

/** A problem in one record: its 1-based number, the line it starts on (CSV), the field and what is wrong. */
export interface RecordProblem extends FieldProblem {
  record: number;
  line?: number;
}

export interface ParsedImport {
  records: BusinessInput[];
  problems: RecordProblem[];
  /** Records in the file, valid or not. */
  total: number;
}

/** The CSV columns, in the order `businesses export --csv` would write them. */
export const CSV_COLUMNS = [
  "id",
  "name",
  "schemaType",
  "category",
  "description",
  "streetAddress",
  "addressLocality",
  "addressRegion",
  "postalCode",
  "addressCountry",
  "latitude",
  "longitude",
  "telephone",
  "email",
  "url",
  "image",
  "sameAs",
  "openingHours",
] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

const COLUMN_ALIASES: Record<string, CsvColumn> = {
  identifier: "id",
  "@type": "schemaType",
  type: "schemaType",
};

/** The CSV column a JSON-LD field problem is about. */
function csvField(field: string): string {
  if (field === "identifier") return "id";
  if (field === "@type") return "schemaType";
  if (field.startsWith("address.")) return field.slice("address.".length);
  if (field.startsWith("geo.")) return field.slice("geo.".length);
  if (field.startsWith("sameAs")) return "sameAs";
  if (field.startsWith("openingHoursSpecification")) return "openingHours";
  return field;
}

export function detectFormat(fileName: string, text: string): ImportFormat {
  if (/\.csv$/i.test(fileName)) return "csv";
  if (/\.(json|jsonld)$/i.test(fileName)) return "json";
  return /^\s*[[{]/.test(text) ? "json" : "csv";
}

export interface ParseOptions {
  onProgress?: (done: number, total: number) => void;
}

/** Parses and validates a whole file. Never throws for bad content: everything wrong is in `problems`. */
export function parseImport(text: string, format: ImportFormat, options: ParseOptions = {}): ParsedImport {
  return format === "csv" ? parseCsvImport(text, options) : parseJsonImport(text, options);
}

function finish(
  items: { value: unknown; line?: number; problems?: FieldProblem[] }[],
  options: ParseOptions,
): ParsedImport {
  const records: BusinessInput[] = [];
  const problems: RecordProblem[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const record = index + 1;
    const where = item.line === undefined ? { record } : { record, line: item.line };
    const parsed = item.problems ? { problems: item.problems } : parseBusiness(item.value);
    if (parsed.problems) {
      for (const p of parsed.problems) problems.push({ ...where, ...p });
    } else if (parsed.value) {
      const first = seen.get(parsed.value.id);
      if (first !== undefined) {
        problems.push({
          ...where,
          field: "identifier",
          message: `"${parsed.value.id}" is already used by record ${first}`,
        });
      } else {
        seen.set(parsed.value.id, record);
        records.push(parsed.value);
      }
    }
    if (record % 1000 === 0) options.onProgress?.(record, items.length);
  });
  return { records, problems, total: items.length };
}

function parseJsonImport(text: string, options: ParseOptions): ParsedImport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { records: [], total: 0, problems: [{ record: 0, field: "(file)", message: `is not JSON: ${message}` }] };
  }
  let elements: unknown[];
  let listItems = false;
  if (Array.isArray(doc)) elements = doc;
  else if (typeof doc === "object" && doc !== null && Array.isArray((doc as Record<string, unknown>).itemListElement)) {
    elements = (doc as { itemListElement: unknown[] }).itemListElement;
    listItems = true;
  } else {
    return {
      records: [],
      total: 0,
      problems: [
        {
          record: 0,
          field: "(file)",
          message: "must be the canonical export (an ItemList with itemListElement) or a JSON array of businesses",
        },
      ],
    };
  }
  const items = elements.map((element) => {
    if (!listItems) return { value: element };
    const li = element as Record<string, unknown> | null;
    if (typeof li !== "object" || li === null || Array.isArray(li) || !("item" in li)) {
      return { value: element, problems: [{ field: "itemListElement", message: "must be a ListItem with an item" }] };
    }
    return { value: li.item };
  });
  return finish(items, options);
}

const DAY_ABBREVIATIONS: Record<string, (typeof DAYS)[number]> = {
  mo: "Monday",
  tu: "Tuesday",
  we: "Wednesday",
  th: "Thursday",
  fr: "Friday",
  sa: "Saturday",
  su: "Sunday",
};

/**
 * Parses schema.org `openingHours` text, entries separated by ";": "Mo-Fr 09:00-17:00; Sa 10:00-13:00".
 * Days are two-letter abbreviations, as ranges (Mo-Fr) or lists (Mo,We,Fr).
 */
export function parseOpeningHoursText(text: string): { value: unknown[] } | { error: string } {
  const result: unknown[] = [];
  for (const raw of text.split(";")) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = /^([A-Za-z,\s-]+?)\s+(\d{2}:\d{2})\s*-\s*(\d{2}:\d{2})$/.exec(entry);
    if (!m) return { error: `"${entry}" is not like "Mo-Fr 09:00-17:00"` };
    const days: string[] = [];
    for (const part of (m[1] as string).split(",")) {
      const [from, to] = part.trim().toLowerCase().split("-");
      const a = from ? DAY_ABBREVIATIONS[from.trim()] : undefined;
      const b = to === undefined ? a : DAY_ABBREVIATIONS[to.trim()];
      if (!a || !b) return { error: `"${part.trim()}" is not a day or range of days such as Mo or Mo-Fr` };
      const start = DAYS.indexOf(a);
      const end = DAYS.indexOf(b);
      for (let d = start; ; d = (d + 1) % 7) {
        days.push(DAYS[d] as string);
        if (d === end) break;
      }
    }
    result.push({ dayOfWeek: days, opens: m[2], closes: m[3] });
  }
  return { value: result };
}

function parseCsvImport(text: string, options: ParseOptions): ParsedImport {
  let rows: ReturnType<typeof parseCsv>;
  try {
    rows = parseCsv(text);
  } catch (error) {
    return {
      records: [],
      total: 0,
      problems: [{ record: 0, field: "(file)", message: error instanceof Error ? error.message : String(error) }],
    };
  }
  const [header, ...body] = rows;
  if (!header) return { records: [], total: 0, problems: [] };
  const columns = header.fields.map((name) => {
    const key = name.trim();
    return (COLUMN_ALIASES[key.toLowerCase()] ??
      CSV_COLUMNS.find((c) => c.toLowerCase() === key.toLowerCase()) ??
      null) as CsvColumn | null;
  });
  const unknown = header.fields.filter((_, i) => columns[i] === null);
  const missing = (["id", "name", "schemaType", "category"] as const).filter((c) => !columns.includes(c));
  if (unknown.length > 0 || missing.length > 0) {
    const problems: RecordProblem[] = [];
    if (unknown.length > 0) {
      problems.push({
        record: 0,
        line: header.line,
        field: "(header)",
        message: `unknown column(s) ${unknown.map((u) => `"${u}"`).join(", ")}; columns are ${CSV_COLUMNS.join(", ")}`,
      });
    }
    if (missing.length > 0) {
      problems.push({
        record: 0,
        line: header.line,
        field: "(header)",
        message: `missing column(s) ${missing.join(", ")}`,
      });
    }
    return { records: [], total: body.length, problems };
  }
  const items = body.map((row) => {
    const problems: FieldProblem[] = [];
    if (row.fields.length !== columns.length) {
      problems.push({
        field: "(row)",
        message: `has ${row.fields.length} fields but the header has ${columns.length}`,
      });
      return { value: null, line: row.line, problems };
    }
    const get = (c: CsvColumn) => {
      const i = columns.indexOf(c);
      const v = i < 0 ? "" : (row.fields[i] ?? "").trim();
      return v === "" ? undefined : v;
    };
    const value: Record<string, unknown> = {
      identifier: get("id"),
      name: get("name"),
      "@type": get("schemaType"),
      category: get("category"),
      description: get("description"),
      address: {
        streetAddress: get("streetAddress"),
        addressLocality: get("addressLocality"),
        addressRegion: get("addressRegion"),
        postalCode: get("postalCode"),
        addressCountry: get("addressCountry"),
      },
      telephone: get("telephone"),
      email: get("email"),
      url: get("url"),
      image: get("image"),
      sameAs: get("sameAs")
        ?.split(/[\s|]+/)
        .filter(Boolean),
    };
    const lat = get("latitude");
    const lng = get("longitude");
    if (lat !== undefined || lng !== undefined) value.geo = { latitude: lat ?? "", longitude: lng ?? "" };
    const hours = get("openingHours");
    if (hours !== undefined) {
      const parsed = parseOpeningHoursText(hours);
      if ("error" in parsed) problems.push({ field: "openingHours", message: parsed.error });
      else value.openingHoursSpecification = parsed.value;
    }
    const checked = parseBusiness(value);
    if (checked.problems) problems.push(...checked.problems.map((p) => ({ ...p, field: csvField(p.field) })));
    return problems.length > 0 ? { value, line: row.line, problems } : { value, line: row.line };
  });
  return finish(items, options);
}

/** One line per problem: `record 3 (line 4), field "latitude": must be a number between -90 and 90`. */
export function formatProblem(p: RecordProblem): string {
  const where =
    p.record === 0
      ? p.line === undefined
        ? "file"
        : `line ${p.line}`
      : p.line === undefined
        ? `record ${p.record}`
        : `record ${p.record} (line ${p.line})`;
  return `${where}, field "${p.field}": ${p.message}`;
}
