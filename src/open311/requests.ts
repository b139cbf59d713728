import { type Kysely, SqliteAdapter, sql } from "kysely";
import type { Category, DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { publicPhoto, publicReport, publicUpdate, publicVisibilitySql } from "../core/visibility.js";
import { open311Status } from "../reports/index.js";
import { reportPhotoUrl, shownMediaUrl } from "../reports/index.js";
import { PUBLIC_REPORT_COLUMNS, type PublicReportColumns } from "../reports/index.js";
import { describePlace, type GazetteerEntry, loadGazetteer } from "../reports/index.js";
import { cellsCovering, geoCellSql } from "../core/geo.js";
import { type NearHere, type RequestFilter, referenceCandidates } from "./query.js";
import type { ServiceRequest } from "./schemas.js";

/** A report as the Open311 API sees it: its public columns (reports' PUBLIC_REPORT_COLUMNS) and two more facts. */
export type PublicReportRow = PublicReportColumns & {
  /** The note of the latest public update by staff or the council ("" when it had none), null without one. */
  latest_note: string | null;
  /** The hash of the first public photo, null without one. */
  first_photo: string | null;
};

const METRES_PER_DEGREE_LAT = 111_320;

/** The authors of the updates status_notes carries: staff, the council and the platform, never residents (issue 36). */
const STAFF_AUTHORS = ["staff", "council", "system"] as const;

function isSqlite(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** A bounding box around a point, then the distance on an equirectangular projection (exact enough for a village). */
function nearHere(near: NearHere) {
  const dLat = near.radiusM / METRES_PER_DEGREE_LAT;
  const mPerDegLng = METRES_PER_DEGREE_LAT * Math.cos((near.lat * Math.PI) / 180);
  const dLng = near.radiusM / Math.max(mPerDegLng, 1);
  const dy = sql`(${sql.ref("reports.latitude")} - ${near.lat}) * ${METRES_PER_DEGREE_LAT}`;
  const dx = sql`(${sql.ref("reports.longitude")} - ${near.lng}) * ${mPerDegLng}`;
  return {
    south: near.lat - dLat,
    north: near.lat + dLat,
    west: near.lng - dLng,
    east: near.lng + dLng,
    within: sql<boolean>`(${dy}) * (${dy}) + (${dx}) * (${dx}) <= ${near.radiusM * near.radiusM}`,
  };
}

/**
 * The Kysely query for a filter (also used by the benchmark to print query plans). Each row carries the note of the
 * report's latest public update and the hash of its first public photo, read by correlated sub-queries on
 * (report_id, …) indexes: one round trip, instead of look-ups with a thousand ids each.
 */
export function requestsQuery(db: Kysely<DB>, filter: RequestFilter) {
  let q = db
    .selectFrom("reports")
    .select(PUBLIC_REPORT_COLUMNS)
    .select((eb) => [
      eb
        .selectFrom("report_updates")
        .select("report_updates.note")
        .whereRef("report_updates.report_id", "=", "reports.id")
        .where(publicUpdate)
        // status_notes is the staff's public status text only: never a resident's or the reporter's update.
        .where("report_updates.author_kind", "in", STAFF_AUTHORS)
        .orderBy("report_updates.created_at", "desc")
        .orderBy("report_updates.id", "desc")
        .limit(1)
        .as("latest_note"),
      eb
        .selectFrom("report_photos")
        .select("report_photos.hash")
        .whereRef("report_photos.report_id", "=", "reports.id")
        .where(publicPhoto)
        .orderBy("report_photos.position")
        .limit(1)
        .as("first_photo"),
    ])
    .where(publicReport);
  if (filter.kind === "ids") {
    return q
      .where("reports.reference", "in", filter.references)
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc");
  }
  const near = filter.near ? nearHere(filter.near) : null;
  const cells = near ? cellsCovering(near.south, near.west, near.north, near.east) : null;
  if (near && cells) {
    // The page's ids from the cells around the point, their dates in the window and the radius, all read from
    // reports_public_cell_created_point (migration 0019), newest first; only those rows are then read. SQLite's
    // planner prefers the date index (it avoids a sort) although the cell index is far faster: INDEXED BY.
    const from = isSqlite(db) ? sql`reports indexed by reports_public_cell_created_point` : sql`reports`;
    const codes = filter.serviceCodes ? sql` and category_code in (${sql.join(filter.serviceCodes)})` : sql``;
    const statuses = filter.statuses ? sql` and status in (${sql.join(filter.statuses)})` : sql``;
    return q
      .where(
        "reports.id",
        "in",
        sql<number>`(select id from ${from} where ${publicVisibilitySql} and ${geoCellSql(db)} in (${sql.join(cells)}) and created_at >= ${filter.from} and created_at <= ${filter.to} and ${near.within}${codes}${statuses} order by created_at desc, id desc limit ${filter.limit} offset ${filter.offset})`,
      )
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc");
  }
  q = q.where("reports.created_at", ">=", filter.from).where("reports.created_at", "<=", filter.to);
  if (filter.serviceCodes) q = q.where("reports.category_code", "in", filter.serviceCodes);
  if (filter.statuses) q = q.where("reports.status", "in", filter.statuses);
  if (near) {
    // A radius covering more than MAX_CELLS cells: a plain latitude/longitude range.
    q = q
      .where("reports.latitude", ">=", near.south)
      .where("reports.latitude", "<=", near.north)
      .where("reports.longitude", ">=", near.west)
      .where("reports.longitude", "<=", near.east)
      .where(near.within);
  }
  return q
    .orderBy("reports.created_at", "desc")
    .orderBy("reports.id", "desc")
    .limit(filter.limit)
    .offset(filter.offset);
}

/** Everything about a page of reports that the presenter needs besides the rows. */
export interface ReportExtras {
  categories: Map<string, Category>;
  places: Map<string, string>;
  /** The gazetteer, to put a place in words when the reporter gave no address (reports' describePlace). */
  gazetteer: GazetteerEntry[];
}

async function loadExtras(db: Kysely<DB>, rows: PublicReportRow[]): Promise<ReportExtras> {
  const codes = [...new Set(rows.map((r) => r.category_code))];
  const placed = rows.some((r) => r.place_id !== null || r.latitude !== null);
  const [categories, gazetteer] = await Promise.all([
    codes.length === 0 ? [] : db.selectFrom("categories").selectAll().where("code", "in", codes).execute(),
    placed ? loadGazetteer(db) : [],
  ]);
  return {
    categories: new Map(categories.map((c) => [c.code, c])),
    places: new Map(gazetteer.map((p) => [p.id, p.name])),
    gazetteer,
  };
}

const MAX_DESCRIPTION = 4000;

/** Open311 has no title: the description starts with it unless it already does (titles derived from it). */
function open311Description(title: string, description: string): string {
  const stem = title.replace(/…$/, "");
  const text = description.startsWith(stem) ? description : `${title}: ${description}`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

export interface PresenterContext {
  baseUrl: string;
  /** Named as the agency for categories the council does not handle. */
  villageName: string;
}

/**
 * A public report as an Open311 service request. This is where the API's privacy rule lives: only public facts
 * are copied, by name. Internal statuses become open/closed, with the staff's latest public note in status_notes (null,
 * an empty element in XML, when there is none; residents' and the reporter's updates are never in it). The address is what the reporter gave, or else the place in words.
 */
export function toServiceRequest(row: PublicReportRow, extras: ReportExtras, ctx: PresenterContext): ServiceRequest {
  const category = extras.categories.get(row.category_code);
  const note = row.latest_note?.trim();
  const photo = row.first_photo;
  const place = row.place_id ? extras.places.get(row.place_id) : undefined;
  const addressParts = [row.location_text, place].filter((p): p is string => !!p);
  const address =
    addressParts.length === 2 && addressParts[0]?.includes(addressParts[1] as string)
      ? addressParts[0]
      : addressParts.length > 0
        ? addressParts.join(", ")
        : // No address given: the point in the gazetteer's words ("About 40 m from …"), never bare coordinates.
          describePlace({ lat: row.latitude, lng: row.longitude }, extras.gazetteer, { coordinates: false });
  const agency = category ? (category.department_name ?? `${ctx.villageName} community volunteers`) : null;
  return {
    service_request_id: row.reference,
    status: open311Status(row.status),
    status_notes: note ? note : null,
    service_name: category?.name ?? null,
    service_code: row.category_code,
    description: open311Description(row.title, row.description),
    agency_responsible: agency,
    service_notice:
      row.forwarded_at && category?.department_name
        ? `Forwarded to ${category.department_name} on ${row.forwarded_at.slice(0, 10)}.`
        : null,
    requested_datetime: row.created_at,
    updated_datetime: row.updated_at,
    expected_datetime: row.expected_at,
    address: address || null,
    address_id: row.address_id,
    zipcode: null,
    lat: row.latitude,
    long: row.longitude,
    media_url: photo ? reportPhotoUrl(ctx.baseUrl, photo, "full") : shownMediaUrl(row.media_url, ctx.baseUrl),
  };
}

/** GET requests: the public reports matching a filter, newest first, as Open311 service requests. */
export async function findServiceRequests(
  db: Kysely<DB>,
  filter: RequestFilter,
  ctx: PresenterContext,
): Promise<ServiceRequest[]> {
  const rows: PublicReportRow[] = await requestsQuery(db, filter).execute();
  const extras = await loadExtras(db, rows);
  return rows.map((r) => toServiceRequest(r, extras, ctx));
}

/** GET requests/{id}: one public report, or a 404 (hidden and removed reports do not exist for the API). */
export async function findServiceRequest(
  db: Kysely<DB>,
  reference: string,
  ctx: PresenterContext,
): Promise<ServiceRequest> {
  const [found] = await findServiceRequests(db, { kind: "ids", references: referenceCandidates(reference) }, ctx);
  if (!found) throw new AppError("not_found", `service_request_id "${reference}" was not found.`);
  return found;
}

/** Codes of public categories among the given ones. */
export async function knownServiceCodes(db: Kysely<DB>, codes: string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await db
    .selectFrom("categories")
    .select("code")
    .where("code", "in", codes)
    .where("is_public", "=", 1)
    .execute();
  return new Set(rows.map((r) => r.code));
}
