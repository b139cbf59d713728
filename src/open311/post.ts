import type { Civic } from "../core/context.js";
import type { PhotoInput } from "../core/media/images.js";
import type { ReceivedFile } from "../core/media/uploads.js";
import { AppError, type FieldProblem, isAppError } from "../core/http/errors.js";
import { assertCleanText } from "../core/http/input.js";
import { parseDegrees } from "../core/geo.js";
import type { AttributeValues } from "../reports/index.js";
import { type ReportSubmission, submitReport, textLength } from "../reports/index.js";
import type { ApiClient } from "./keys.js";
import { PostBodyForm } from "./schemas.js";
import { openCategory } from "./services.js";

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

/** The content types POST accepts: form-encoded (the standard) and multipart/form-data (with `media` photos). */
export const POST_CONTENT_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"] as const;

/** True when a Content-Type header names one of POST_CONTENT_TYPES (parameters such as charset aside). */
export function isAcceptedPostType(header: string | undefined): boolean {
  const type = (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return (POST_CONTENT_TYPES as readonly string[]).includes(type);
}

/** Longest attribute code, attribute answer, and number of answers to one attribute a POST may send. */
export const MAX_ATTRIBUTE_CODE = 100;
export const MAX_ATTRIBUTE_VALUE = 2000;
export const MAX_ATTRIBUTE_VALUES = 100;

/** Each standard field's maxLength, from the body schema that the OpenAPI description publishes (postBodySchemas). */
const FIELD_LIMITS = new Map<string, number>(
  Object.entries(PostBodyForm.properties).map(([name, schema]) => [
    name,
    (schema as unknown as { maxLength: number }).maxLength,
  ]),
);

/**
 * Bounds every field of a POST the same way whatever its content type (form-encoded or multipart): each standard
 * field by its schema maxLength, attribute codes, answers and lists by the limits above. Fields that are neither are
 * ignored (never stored). Throws one 400 listing every problem.
 */
export function checkPostFields(fields: Map<string, string[]>): void {
  // Also checked by the app-wide input hook when the body is parsed before the hooks; this covers a body read later.
  assertCleanText(fields);
  const problems: FieldProblem[] = [];
  for (const [name, values] of fields) {
    const limit = FIELD_LIMITS.get(name);
    const attribute = ATTRIBUTE_KEY.exec(name);
    if (limit !== undefined) {
      if (values.some((v) => textLength(v) > limit))
        problems.push({ field: name, message: `must be at most ${limit} characters` });
    } else if (attribute?.[1]) {
      if (textLength(attribute[1]) > MAX_ATTRIBUTE_CODE) {
        problems.push({ field: "attribute", message: `codes must be at most ${MAX_ATTRIBUTE_CODE} characters` });
      } else if (values.length > MAX_ATTRIBUTE_VALUES) {
        problems.push({ field: name, message: `may be given at most ${MAX_ATTRIBUTE_VALUES} times` });
      } else if (values.some((v) => textLength(v) > MAX_ATTRIBUTE_VALUE)) {
        problems.push({ field: name, message: `must be at most ${MAX_ATTRIBUTE_VALUE} characters` });
      }
    }
  }
  if (problems.length > 0) {
    const detail = problems.map((p) => `${p.field} ${p.message}`).join("; ");
    throw new AppError("validation_failed", `The request is not valid: ${detail}.`, { fields: problems });
  }
}

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

const COORDINATE_RANGE = { lat: 90, long: 180 } as const;

/** lat or long: a plain decimal number of degrees within range (a long string of digits is not Infinity). */
function coordinate(fields: Map<string, string[]>, name: "lat" | "long"): number | null {
  const value = parseDegrees(one(fields, name) ?? "");
  if (value === null) return null;
  if (!Number.isFinite(value) || Math.abs(value) > COORDINATE_RANGE[name]) {
    const range = COORDINATE_RANGE[name];
    throw new AppError("validation_failed", `${name} must be a decimal number between -${range} and ${range}.`, {
      fields: [{ field: name, message: `must be a decimal number of WGS84 degrees between -${range} and ${range}` }],
    });
  }
  return value;
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
 * photo processing, storage and confirmation email as the web form). `address_id` names a gazetteer place (any
 * other value is not a location and is neither stored nor published); an
 * unknown service_code is a 404 as the standard says; every other problem is a 400 naming the Open311 parameter.
 */
export async function createServiceRequest(
  civic: Civic,
  client: ApiClient,
  body: PostFields,
): Promise<CreatedServiceRequest> {
  const { fields, media } = body;
  checkPostFields(fields);
  const serviceCode = one(fields, "service_code");
  if (!serviceCode) {
    throw new AppError("validation_failed", "service_code was not provided.", {
      fields: [{ field: "service_code", message: "was not provided" }],
    });
  }
  // An unknown or non-public service_code is a 404 and a retired one a 400, before any other check.
  const category = await openCategory(civic.database.db, serviceCode);
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
  // GeoReport v2's account_id is the submitting system's own identifier of the person: it is echoed in the answer
  // and never taken as one of our account ids (nor stored), so a client cannot file reports under a resident.
  const clientAccountId = one(fields, "account_id");
  const email = one(fields, "email");
  const phone = one(fields, "phone");

  const submission: ReportSubmission = {
    categoryCode: serviceCode,
    category,
    title: null,
    description: one(fields, "description") ?? "",
    lat,
    lng,
    locationText: one(fields, "address_string"),
    placeId,
    // Only a known gazetteer id is kept and published: typed text here could carry anything, personal data too.
    addressId: placeId,
    attributes,
    photos: media,
    mediaUrl: one(fields, "media_url"),
    reporter: { email, name, phone, shareContact: false },
    deviceId: one(fields, "device_id"),
    accountId: null,
    source: "open311",
    apiKeyId: client.id,
  };
  try {
    const created = await submitReport(civic, submission);
    return {
      service_request_id: created.reference,
      service_notice: created.serviceNotice,
      account_id: clientAccountId,
    };
  } catch (error) {
    if (isAppError(error) && error.code === "validation_failed") {
      const problems = toOpen311Fields(error.fields, lat !== null || lng !== null);
      throw new AppError("validation_failed", error.message, { fields: problems });
    }
    throw error;
  }
}
