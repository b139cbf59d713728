import type { Civic } from "../core/context.js";
import type { PhotoInput } from "../core/media/images.js";
import type { ReceivedFile } from "../core/media/uploads.js";
import { AppError, type FieldProblem, isAppError } from "../core/http/errors.js";
import type { AttributeValues } from "../reports/attributes.js";
import { type ReportSubmission, submitReport } from "../reports/submit.js";
import type { ApiClient } from "./keys.js";
import { publicCategory } from "./services.js";

/** A POST body reduced to its text fields (each possibly repeated) and its `media` files. */
export interface PostFields {
  fields: Map<string, string[]>;
  media: PhotoInput[];
}

interface MultipartPart {
  type?: unknown;
  value?: unknown;
}

/** The multipart fields that carry photos. */
export function isMediaField(name: string): boolean {
  return name === "media" || name === "media[]";
}

function isPart(value: unknown): value is MultipartPart {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "type" in value;
}

/**
 * Normalises a form-encoded body (values are strings or arrays of strings), the text fields of a multipart body
 * (read by core/media/uploads.ts) and its files, already in the upload store, into one shape. Files are only taken
 * from `media` (or `media[]`); a nested `attribute` object (from parsers that expand brackets) is flattened back to
 * `attribute[code]`.
 */
export function readPostBody(body: unknown, files: ReceivedFile[] = []): PostFields {
  const fields = new Map<string, string[]>();
  const media: PostFields["media"] = files
    .filter((f) => isMediaField(f.field))
    .map((f) => ({ path: f.path, size: f.size, filename: f.filename }));
  const add = (key: string, value: string) => fields.set(key, [...(fields.get(key) ?? []), value]);
  if (typeof body !== "object" || body === null) return { fields, media };
  for (const [key, raw] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      if (typeof item === "string" || typeof item === "number") add(key, String(item));
      else if (isPart(item)) {
        if (typeof item.value === "string" || typeof item.value === "number") add(key, String(item.value));
      } else if (key === "attribute" && typeof item === "object" && item !== null) {
        for (const [code, v] of Object.entries(item as Record<string, unknown>)) {
          for (const x of Array.isArray(v) ? v : [v]) if (typeof x === "string") add(`attribute[${code}]`, x);
        }
      }
    }
  }
  return { fields, media };
}

const ATTRIBUTE_KEY = /^attribute\[([^\]]+)\](\[\])?$/;

/** `attribute[code]=v` and `attribute[code][]=v1&attribute[code][]=v2` as attribute values. */
export function attributeValues(fields: Map<string, string[]>): AttributeValues {
  const values: AttributeValues = {};
  for (const [key, list] of fields) {
    const m = ATTRIBUTE_KEY.exec(key);
    if (!m?.[1]) continue;
    const code = m[1];
    const previous = values[code];
    const merged = [...(previous === undefined ? [] : Array.isArray(previous) ? previous : [previous]), ...list];
    values[code] = m[2] || merged.length > 1 ? merged : (merged[0] ?? "");
  }
  return values;
}

function one(fields: Map<string, string[]>, name: string): string | null {
  const list = fields.get(name);
  if (!list || list.length === 0) return null;
  if (list.length > 1) {
    throw new AppError("validation_failed", `${name} was given more than once.`, {
      fields: [{ field: name, message: "was given more than once" }],
    });
  }
  const v = list[0]?.trim() ?? "";
  return v === "" ? null : v;
}

function coordinate(fields: Map<string, string[]>, name: "lat" | "long"): number | null {
  const raw = one(fields, name);
  if (raw === null) return null;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(raw)) {
    throw new AppError("validation_failed", `${name} must be a decimal number.`, {
      fields: [{ field: name, message: "must be a decimal number (WGS84 degrees)" }],
    });
  }
  return Number(raw);
}

/** Renames the shared report model's field names to the Open311 parameter names the client sent. */
export function toOpen311Fields(problems: FieldProblem[], hadCoordinates: boolean): FieldProblem[] {
  const rename: Record<string, string> = {
    category: "service_code",
    lng: "long",
    location: hadCoordinates ? "lat/long" : "address_string",
    title: "description",
    name: "first_name/last_name",
    photos: "media",
  };
  return problems.map((p) => ({ field: rename[p.field] ?? p.field, message: p.message }));
}

export type CreatedServiceRequest = {
  service_request_id: string;
  service_notice: string | null;
  account_id: string | null;
};

/**
 * POST requests: turns an Open311 submission into a report through the shared `submitReport` (same checks,
 * photo processing, storage and confirmation email as the web form). `address_id` names a gazetteer place; an
 * unknown service_code is a 404 as the standard says; every other problem is a 400 naming the Open311 parameter.
 */
export async function createServiceRequest(
  civic: Civic,
  client: ApiClient,
  body: PostFields,
): Promise<CreatedServiceRequest> {
  const { fields, media } = body;
  const serviceCode = one(fields, "service_code");
  if (!serviceCode) {
    throw new AppError("validation_failed", "service_code was not provided.", {
      fields: [{ field: "service_code", message: "was not provided" }],
    });
  }
  // An unknown or non-public service_code is a 404, before any other check.
  await publicCategory(civic.database.db, serviceCode);
  const attributes = attributeValues(fields);
  const lat = coordinate(fields, "lat");
  const lng = coordinate(fields, "long");
  const addressId = one(fields, "address_id");
  let placeId: string | null = null;
  if (addressId) {
    const place = await civic.database.db
      .selectFrom("places")
      .select("id")
      .where("id", "=", addressId)
      .executeTakeFirst();
    if (place) placeId = place.id;
    else if (lat === null && lng === null && !one(fields, "address_string")) {
      throw new AppError("validation_failed", "address_id is not a known address.", {
        fields: [{ field: "address_id", message: "is not a known address id; send lat/long or address_string" }],
      });
    }
  }
  const firstName = one(fields, "first_name");
  const lastName = one(fields, "last_name");
  const name = [firstName, lastName].filter((n): n is string => n !== null).join(" ") || null;
  const accountId = one(fields, "account_id");
  const email = one(fields, "email");
  const phone = one(fields, "phone");

  const submission: ReportSubmission = {
    categoryCode: serviceCode,
    title: null,
    description: one(fields, "description") ?? "",
    lat,
    lng,
    locationText: one(fields, "address_string"),
    placeId,
    addressId,
    attributes,
    photos: media,
    mediaUrl: one(fields, "media_url"),
    reporter: { email, name, phone, shareContact: false },
    deviceId: one(fields, "device_id"),
    accountId,
    source: "open311",
    apiKeyId: client.id,
  };
  try {
    const created = await submitReport(civic, submission);
    return { service_request_id: created.reference, service_notice: created.serviceNotice, account_id: accountId };
  } catch (error) {
    if (isAppError(error) && error.code === "validation_failed") {
      const problems = toOpen311Fields(error.fields, lat !== null || lng !== null);
      throw new AppError("validation_failed", error.message, { fields: problems });
    }
    throw error;
  }
}
