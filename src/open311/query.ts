import { clampInstant, daysInMonth, isStorableInstant, utcDay } from "../core/calendar.js";
import type { ReportStatus } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { open311Status, REPORT_STATUSES } from "../reports/index.js";
import { normaliseReference } from "../reports/index.js";
import { MAX_CODES, MAX_IDS, type RequestsQuery } from "./schemas.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The standard's default and maximum window for GET requests. */
export const MAX_WINDOW_DAYS = 90;
/** The standard's "first 1000 requests". */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_RADIUS_M = 500;

export interface NearHere {
  lat: number;
  lng: number;
  radiusM: number;
}

/** What GET requests asks for, checked and normalised. */
export type RequestFilter =
  | { kind: "ids"; references: string[] }
  | {
      kind: "search";
      /** null: every service. */
      serviceCodes: string[] | null;
      /** Internal statuses to include; null: all. */
      statuses: ReportStatus[] | null;
      /** Inclusive window on requested_datetime, ISO 8601 UTC. */
      from: string;
      to: string;
      near: NearHere | null;
      limit: number;
      offset: number;
    };

function badRequest(field: string, message: string): AppError {
  return new AppError("validation_failed", `${field} ${message}`, { fields: [{ field, message }] });
}

/**
 * The W3C datetime profile (https://www.w3.org/TR/NOTE-datetime) with a required timezone, or a plain date. The
 * timezone is `Z` or an ISO 8601 offset with or without the colon (`+01:00`, `+0100`: Python's `%z` writes the
 * latter).
 */
const W3C_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const W3C_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Parses a start_date / end_date. A full datetime must carry its timezone (Z, ±hh:mm or ±hhmm; the standard asks for
 * one): a time without one is refused, naming the format, rather than guessed in some zone. A bare date means
 * midnight UTC at the start of that day, or the last millisecond of it for an end date. A `+` that the query string
 * decoded into a space is put back.
 */
export function parseW3cDatetime(field: string, raw: string, end: boolean): Date {
  const value = raw.trim().replace(/ (\d{2}:?\d{2})$/, "+$1");
  const date = W3C_DATE.exec(value);
  const full = date ? null : W3C_DATETIME.exec(value);
  if (!date && !full) {
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) {
      throw badRequest(
        field,
        "must include a timezone (Z, ±hh:mm or ±hhmm), e.g. 2026-01-01T00:00:00Z, 2026-01-01T00:00:00+01:00 or 2026-01-01T00:00:00+0100",
      );
    }
    throw badRequest(field, "must be a W3C datetime such as 2026-01-01T00:00:00Z");
  }
  const [y, mo, d] = (date ?? full ?? []).slice(1, 4).map(Number) as [number, number, number];
  const monthDays = daysInMonth(y, mo);
  const bad =
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > monthDays ||
    (full &&
      (Number(full[4]) > 23 ||
        Number(full[5]) > 59 ||
        Number(full[6] ?? 0) > 59 ||
        Number(full[8]?.slice(1, 3) ?? 0) > 23 ||
        Number(full[8]?.slice(-2) ?? 0) > 59));
  if (bad) throw badRequest(field, "is not a real date and time");
  const parsed = date
    ? new Date(utcDay(y, mo - 1, d).getTime() + (end ? DAY_MS - 1 : 0))
    : new Date(value.replace(/(\.\d{3})\d+/, "$1").replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  if (Number.isNaN(parsed.getTime())) throw badRequest(field, "is not a real date and time");
  if (!isStorableInstant(parsed.getTime())) throw badRequest(field, "must be in the years 0001 to 9999");
  return parsed;
}

function commaList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return [...new Set(raw.split(",").map((s) => s.trim()))].filter((s) => s !== "");
}

/**
 * The stored forms a typed reference may have: as given (upper-cased) and normalised (O→0, I/L→1, dash added).
 * Generated references never contain I, L or O, so looking up both cannot match the wrong report.
 */
export function referenceCandidates(input: string): string[] {
  return [...new Set([input.trim().toUpperCase(), normaliseReference(input)])];
}

/** The internal statuses behind Open311's `open` and `closed`. */
export function statusesFor(wanted: "open" | "closed"): ReportStatus[] {
  return REPORT_STATUSES.filter((s) => open311Status(s) === wanted);
}

/**
 * Checks and normalises the query of GET requests. `service_request_id` overrides every other parameter, as the
 * standard says (they are still checked to be well-formed: a malformed one is a 400). Without dates the window is the last 90 days; with one date it is the 90 days after start_date or
 * before end_date; a longer window is a 400.
 */
export function parseRequestsQuery(q: RequestsQuery, now: Date): RequestFilter {
  const ids = commaList(q.service_request_id);
  if (ids.length > MAX_IDS) throw badRequest("service_request_id", `may list at most ${MAX_IDS} ids`);

  const codes = commaList(q.service_code);
  if (codes.length > MAX_CODES) throw badRequest("service_code", `may list at most ${MAX_CODES} codes`);

  let statuses: ReportStatus[] | null = null;
  const wanted = commaList(q.status?.toLowerCase());
  for (const s of wanted) {
    if (s !== "open" && s !== "closed") throw badRequest("status", "must be open, closed or open,closed");
  }
  if (wanted.length === 1) statuses = statusesFor(wanted[0] as "open" | "closed");

  // A date given empty (`start_date=`) is a 400, as the published pattern refuses it: only an absent one is no date.
  const start = q.start_date !== undefined ? parseW3cDatetime("start_date", q.start_date, false) : null;
  const end = q.end_date !== undefined ? parseW3cDatetime("end_date", q.end_date, true) : null;
  // service_request_id overrides the other filters (the standard): they are only checked to be well-formed (each
  // has its pattern in the description), not used, and the rules between them (the window) do not apply.
  if (ids.length > 0) return { kind: "ids", references: [...new Set(ids.flatMap(referenceCandidates))] };

  const windowMs = MAX_WINDOW_DAYS * DAY_MS;
  let from: Date;
  let to: Date;
  if (start && end) {
    if (end < start) throw badRequest("end_date", "must not be before start_date");
    if (end.getTime() - start.getTime() > windowMs) {
      throw badRequest("end_date", `must be at most ${MAX_WINDOW_DAYS} days after start_date`);
    }
    from = start;
    to = end;
  } else if (start) {
    from = start;
    to = new Date(clampInstant(start.getTime() + windowMs));
  } else if (end) {
    to = end;
    from = new Date(clampInstant(end.getTime() - windowMs));
  } else {
    to = now;
    from = new Date(now.getTime() - windowMs);
  }

  let near: NearHere | null = null;
  if ((q.lat === undefined) !== (q.long === undefined)) {
    throw badRequest(q.lat === undefined ? "lat" : "long", "lat and long must be given together");
  }
  if (q.lat !== undefined && q.long !== undefined) {
    near = { lat: q.lat, lng: q.long, radiusM: q.radius ?? DEFAULT_RADIUS_M };
  } else if (q.radius !== undefined) {
    throw badRequest("radius", "needs lat and long");
  }

  const pageSize = q.page_size ?? MAX_PAGE_SIZE;
  const page = q.page ?? 1;
  return {
    kind: "search",
    serviceCodes: codes.length > 0 ? codes : null,
    statuses,
    from: from.toISOString(),
    to: to.toISOString(),
    near,
    limit: pageSize,
    offset: (page - 1) * pageSize,
  };
}
