import type { Business, NewBusiness } from "../core/db/schema.js";
import type { FieldProblem } from "../core/http/errors.js";
import { isLocalBusinessType, schemaClass, typeLabel } from "./vocabulary.js";

/**
 * SemVer of the dataset's shape (the JSON-LD fields a business carries, the export and diff envelopes). Sent as
 * `X-Dataset-Version` on the list endpoint. Bump the minor version when fields are added, the major version when a
 * field is removed or changes meaning. 1.1.0: a business's `@context` became schema.org's plus the directory's own
 * terms (`category`, `dateCreated`, `dateModified` keep their keys and values; in JSON-LD they now mean this
 * platform's terms instead of schema.org terms that are not defined for LocalBusiness).
 */
export const DATASET_SCHEMA_VERSION = "1.1.0";

export const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
export type Day = (typeof DAYS)[number];

/** One schema.org OpeningHoursSpecification: the days it applies to and the times (24-hour "HH:MM"). */
export interface OpeningHours {
  dayOfWeek: Day[];
  opens: string;
  closes: string;
}

export interface PostalAddress {
  streetAddress: string | null;
  addressLocality: string | null;
  addressRegion: string | null;
  postalCode: string | null;
  addressCountry: string | null;
}

/** A directory entry as the platform thinks of it (the database row, parsed). */
export interface BusinessRecord {
  /** Stable, URL-safe canonical id (slug). */
  id: string;
  name: string;
  /** Most specific schema.org LocalBusiness subtype. */
  schemaType: string;
  /** Human display category, e.g. "Food and drink". */
  category: string;
  description: string | null;
  address: PostalAddress;
  geo: { latitude: number; longitude: number } | null;
  telephone: string | null;
  email: string | null;
  url: string | null;
  image: string | null;
  sameAs: string[];
  openingHours: OpeningHours[];
  createdAt: string;
  updatedAt: string;
}

/** The fields an import supplies: everything but the dates, which the platform keeps. */
export type BusinessInput = Omit<BusinessRecord, "createdAt" | "updatedAt">;

export const ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_ID_LENGTH = 100;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

function parseJsonArray(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** Parses a database row. Rows written by the platform are already valid; anything odd is dropped, not thrown. */
export function fromRow(row: Business): BusinessRecord {
  const openingHours = parseJsonArray(row.opening_hours).flatMap((h) => {
    const parsed = parseOpeningHours(h);
    return parsed.value ? [parsed.value] : [];
  });
  return {
    id: row.id,
    name: row.name,
    // Imports only accept LocalBusiness types, but rows written another way (the demo seed, SQL by hand) are
    // published as plain LocalBusiness rather than under a type schema.org does not have.
    schemaType: isLocalBusinessType(row.schema_type) ? row.schema_type : "LocalBusiness",
    category: row.category,
    description: row.description,
    address: {
      streetAddress: row.street_address,
      addressLocality: row.locality,
      addressRegion: row.region,
      postalCode: row.postal_code,
      addressCountry: row.country,
    },
    geo: row.latitude !== null && row.longitude !== null ? { latitude: row.latitude, longitude: row.longitude } : null,
    telephone: row.telephone,
    email: row.email,
    url: row.url,
    image: row.image,
    sameAs: parseJsonArray(row.same_as).filter((s): s is string => typeof s === "string"),
    openingHours,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The row values of a business (without dates and tombstone). */
export function toRowFields(b: BusinessInput): Omit<NewBusiness, "created_at" | "updated_at" | "deleted_at"> {
  return {
    id: b.id,
    name: b.name,
    schema_type: b.schemaType,
    category: b.category,
    description: b.description,
    street_address: b.address.streetAddress,
    locality: b.address.addressLocality,
    region: b.address.addressRegion,
    postal_code: b.address.postalCode,
    country: b.address.addressCountry,
    latitude: b.geo?.latitude ?? null,
    longitude: b.geo?.longitude ?? null,
    telephone: b.telephone,
    email: b.email,
    url: b.url,
    opening_hours: JSON.stringify(b.openingHours),
    same_as: JSON.stringify(b.sameAs),
    image: b.image,
    search_text: businessSearchText(b),
  };
}

/**
 * The text full-text search reads for a business (core/search.ts): name, category, its type in words ("Bar or
 * pub", "Plumber"), description and address.
 */
export function businessSearchText(b: BusinessInput): string {
  const a = b.address;
  return [
    b.name,
    b.category,
    typeLabel(b.schemaType),
    b.description,
    a.streetAddress,
    a.addressLocality,
    a.addressRegion,
    a.postalCode,
    a.addressCountry,
  ]
    .filter(Boolean)
    .join(" ");
}

/** True when two businesses have the same content (dates aside): an import of an unchanged record is no change. */
export function sameContent(a: BusinessInput, b: BusinessInput): boolean {
  return JSON.stringify(toRowFields(a)) === JSON.stringify(toRowFields(b));
}

// ---------------------------------------------------------------------------------------------------------------
// Validation of incoming records (imports)
// ---------------------------------------------------------------------------------------------------------------

type Parsed<T> = { value: T; problems?: undefined } | { value?: undefined; problems: FieldProblem[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function dayName(v: unknown): Day | null {
  if (typeof v !== "string") return null;
  const name = v.trim().replace(/^(?:https?:\/\/schema\.org\/|schema:)/i, "");
  return DAYS.find((d) => d.toLowerCase() === name.toLowerCase()) ?? null;
}

function time(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const m = TIME.exec(v.trim());
  if (!m || (m[3] !== undefined && m[3] !== "00")) return null;
  return `${m[1]}:${m[2]}`;
}

/** Parses one schema.org OpeningHoursSpecification (dayOfWeek may be one day or a list; names or schema.org IRIs). */
export function parseOpeningHours(v: unknown, field = "openingHoursSpecification"): Parsed<OpeningHours> {
  if (!isObject(v)) return { problems: [{ field, message: "must be an object with dayOfWeek, opens and closes" }] };
  const problems: FieldProblem[] = [];
  const rawDays = Array.isArray(v.dayOfWeek) ? v.dayOfWeek : v.dayOfWeek === undefined ? [] : [v.dayOfWeek];
  const days = rawDays.map(dayName);
  if (days.length === 0 || days.some((d) => d === null)) {
    problems.push({ field: `${field}.dayOfWeek`, message: 'must name one or more days, e.g. "Monday"' });
  }
  const opens = time(v.opens);
  const closes = time(v.closes);
  if (!opens) problems.push({ field: `${field}.opens`, message: 'must be a 24-hour time "HH:MM"' });
  if (!closes) problems.push({ field: `${field}.closes`, message: 'must be a 24-hour time "HH:MM"' });
  if (problems.length > 0) return { problems };
  const unique = DAYS.filter((d) => days.includes(d));
  return { value: { dayOfWeek: unique, opens: opens as string, closes: closes as string } };
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "https:" || u.protocol === "http:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Validates one business object in the canonical JSON-LD shape (as exported) and returns the record, or every
 * problem with the field it concerns. `@context`, `@id`, `dateCreated` and `dateModified` are ignored: the platform
 * owns them.
 */
export function parseBusiness(input: unknown): Parsed<BusinessInput> {
  if (!isObject(input)) return { problems: [{ field: "(record)", message: "must be a JSON object" }] };
  const problems: FieldProblem[] = [];
  const text = (field: string, max: number, required: boolean): string | null => {
    const v = input[field];
    if (v === undefined || v === null || (typeof v === "string" && v.trim() === "")) {
      if (required) problems.push({ field, message: "is required" });
      return null;
    }
    if (typeof v !== "string") {
      problems.push({ field, message: "must be a string" });
      return null;
    }
    const t = v.trim();
    if (t.length > max) problems.push({ field, message: `must be at most ${max} characters` });
    return t;
  };

  const id = text("identifier", MAX_ID_LENGTH, true);
  if (id !== null && !ID_PATTERN.test(id)) {
    problems.push({ field: "identifier", message: "must be lower-case letters, digits and single hyphens (a slug)" });
  }
  const name = text("name", 200, true);
  const category = text("category", 100, true);
  const description = text("description", 2000, false);

  let schemaType: string | null = null;
  const rawType = input["@type"];
  if (typeof rawType !== "string" || rawType.trim() === "") {
    problems.push({ field: "@type", message: "is required: a schema.org LocalBusiness type such as Bakery" });
  } else {
    schemaType = schemaClass(rawType);
    if (!schemaType) problems.push({ field: "@type", message: `"${rawType}" is not a schema.org type` });
    else if (!isLocalBusinessType(schemaType)) {
      problems.push({ field: "@type", message: `${schemaType} is not LocalBusiness or one of its subtypes` });
      schemaType = null;
    }
  }

  const address: PostalAddress = {
    streetAddress: null,
    addressLocality: null,
    addressRegion: null,
    postalCode: null,
    addressCountry: null,
  };
  if (input.address !== undefined && input.address !== null) {
    if (!isObject(input.address)) problems.push({ field: "address", message: "must be a PostalAddress object" });
    else {
      for (const key of Object.keys(address) as (keyof PostalAddress)[]) {
        const v = input.address[key];
        if (v === undefined || v === null || v === "") continue;
        if (typeof v !== "string") problems.push({ field: `address.${key}`, message: "must be a string" });
        else if (v.length > 200) problems.push({ field: `address.${key}`, message: "must be at most 200 characters" });
        else address[key] = v.trim();
      }
    }
  }

  let geo: BusinessInput["geo"] = null;
  if (input.geo !== undefined && input.geo !== null) {
    if (!isObject(input.geo)) problems.push({ field: "geo", message: "must be a GeoCoordinates object" });
    else {
      const lat = Number(input.geo.latitude);
      const lng = Number(input.geo.longitude);
      const latOk = input.geo.latitude !== "" && Number.isFinite(lat) && lat >= -90 && lat <= 90;
      const lngOk = input.geo.longitude !== "" && Number.isFinite(lng) && lng >= -180 && lng <= 180;
      if (!latOk) problems.push({ field: "geo.latitude", message: "must be a number between -90 and 90" });
      if (!lngOk) problems.push({ field: "geo.longitude", message: "must be a number between -180 and 180" });
      if (latOk && lngOk) geo = { latitude: lat, longitude: lng };
    }
  }

  const telephone = text("telephone", 40, false);
  if (telephone !== null && !/^[+0-9 ()-]{3,40}$/.test(telephone)) {
    problems.push({ field: "telephone", message: "may contain only digits, spaces, +, -, ( and )" });
  }
  const email = text("email", 254, false);
  if (email !== null && !EMAIL.test(email)) problems.push({ field: "email", message: "is not an email address" });
  const url = text("url", 500, false);
  if (url !== null && !isHttpUrl(url)) problems.push({ field: "url", message: "must be an http(s) URL" });
  const image = text("image", 500, false);
  if (image !== null && !isHttpUrl(image)) problems.push({ field: "image", message: "must be an http(s) URL" });

  const sameAs: string[] = [];
  const rawSameAs = input.sameAs === undefined || input.sameAs === null ? [] : input.sameAs;
  const sameAsList = Array.isArray(rawSameAs) ? rawSameAs : [rawSameAs];
  sameAsList.forEach((s, i) => {
    if (typeof s !== "string" || !isHttpUrl(s.trim())) {
      problems.push({ field: `sameAs[${i}]`, message: "must be an http(s) URL" });
    } else if (!sameAs.includes(s.trim())) sameAs.push(s.trim());
  });

  const openingHours: OpeningHours[] = [];
  const rawHours = input.openingHoursSpecification ?? [];
  if (!Array.isArray(rawHours)) {
    problems.push({ field: "openingHoursSpecification", message: "must be a list of OpeningHoursSpecification" });
  } else {
    rawHours.forEach((h, i) => {
      const parsed = parseOpeningHours(h, `openingHoursSpecification[${i}]`);
      if (parsed.problems) problems.push(...parsed.problems);
      else openingHours.push(parsed.value);
    });
  }

  if (problems.length > 0) return { problems };
  return {
    value: {
      id: id as string,
      name: name as string,
      schemaType: schemaType as string,
      category: category as string,
      description,
      address,
      geo,
      telephone,
      email,
      url,
      image,
      sameAs,
      openingHours,
    },
  };
}
