import { type Kysely, sql } from "kysely";
import type {
  DB,
  Report,
  ReportEventAuthor,
  ReportEventKind,
  ReportStatus,
  ReportVisibility,
} from "../core/db/schema.js";
import { publicPhoto, publicReport, publicUpdate, publicVisibilitySql } from "../core/visibility.js";
import { cellsCovering, distanceMetres, geoCellSql } from "../core/geo.js";
import { publicReportCount } from "./counts.js";
import { open311Status, STATUS_LABELS, UNRESOLVED_STATUSES } from "./model.js";
import { reportPhotoUrl } from "./photos.js";
import { describePlace, type GazetteerEntry, loadGazetteer } from "./place-words.js";

/**
 * What of a report may leave the server. Presenters build this and nothing else, so the reporter's name, email,
 * phone, device and account never reach a page, feed or API by accident.
 */
export interface PublicReport {
  reference: string;
  title: string;
  description: string;
  categoryCode: string;
  categoryName: string;
  status: ReportStatus;
  statusLabel: string;
  open311Status: "open" | "closed";
  lat: number | null;
  lng: number | null;
  locationText: string | null;
  placeName: string | null;
  /** Where, in words (place-words.ts): what the reporter said, the gazetteer's nearest name; null when nowhere. */
  placeInWords: string | null;
  /** The first public photo's thumbnail, for lists (null elsewhere, and without one). */
  thumbnail: Thumbnail | null;
  createdAt: string;
  updatedAt: string;
  forwardedAt: string | null;
  /** The department's name, when forwarded (never its address). */
  forwardedToName: string | null;
}

/** A report photo's derived small size, with the size to show it at (its shape kept: no layout shift). */
export interface Thumbnail {
  url: string;
  width: number;
  height: number;
}

/** Longest side of a thumbnail in a list, in CSS pixels (the derived thumbnail is 400, sharp on dense screens). */
const LIST_THUMB_SIZE = 96;

export interface PublicPhoto {
  id: number;
  /** Always "public" for the public; staff also see hidden and removed photos, marked. */
  visibility: ReportVisibility;
  full: string;
  thumb: string;
  width: number;
  height: number;
  /** The resident's update it came with (shown with it in the history), or null for the report's own photos. */
  updateId: number | null;
}

export interface PublicUpdate {
  id: number;
  visibility: ReportVisibility;
  status: ReportStatus;
  statusLabel: string;
  note: string;
  at: string;
  /** Who wrote it (events.ts): the history marks residents', the reporter's and the council's updates. */
  by: ReportEventAuthor;
  /** What it was: "report" (made), "status", "update", "questionnaire". */
  event: ReportEventKind;
}

export interface PublicReportDetail extends PublicReport {
  photos: PublicPhoto[];
  history: PublicUpdate[];
  /** When a moderator last changed what the public sees of it ("moderated on <date>"); null when never. */
  moderatedAt: string | null;
  /** "public" for everyone; staff also get hidden and removed reports, marked. */
  visibility: ReportVisibility;
}

/**
 * The public columns of a report, the only ones a public page, feed, map or the Open311 API reads. The reporter's
 * name, email, phone, device and account ids are not among them, so no public query can return them whatever its
 * presenter does.
 */
export const PUBLIC_REPORT_COLUMNS = [
  "reports.id",
  "reports.reference",
  "reports.title",
  "reports.description",
  "reports.category_code",
  "reports.status",
  "reports.latitude",
  "reports.longitude",
  "reports.location_text",
  "reports.place_id",
  "reports.address_id",
  "reports.created_at",
  "reports.updated_at",
  "reports.expected_at",
  "reports.forwarded_at",
  "reports.media_url",
] as const;

type Unprefixed<T> = T extends `reports.${infer C}` ? C : never;
/** A report row of exactly the public columns, derived from the table type. */
export type PublicReportColumns = Pick<Report, Unprefixed<(typeof PUBLIC_REPORT_COLUMNS)[number]>>;

/**
 * Names of the categories a page of reports refers to, and the gazetteer its places are described from. They come
 * from two small look-ups (`namesFor`) rather than joins: with a join SQLite's planner may drive a deep keyset page
 * from the categories and sort a whole category. The gazetteer is read whole (it is small and bounded) so that every
 * report's place can be put in words (place-words.ts).
 */
interface Names {
  categories: Map<string, { name: string; department_name: string | null }>;
  gazetteer: GazetteerEntry[];
  places: Map<string, string>;
  /** The first public photo of each report, by report id (lists only). */
  thumbnails: Map<number, Thumbnail>;
}

async function namesFor(
  db: Kysely<DB>,
  rows: PublicReportColumns[],
  options: { thumbnails?: boolean } = {},
): Promise<Names> {
  const codes = [...new Set(rows.map((r) => r.category_code))];
  const placed = rows.some((r) => r.place_id !== null || r.latitude !== null);
  const [categories, gazetteer, thumbnails] = await Promise.all([
    codes.length === 0
      ? []
      : db.selectFrom("categories").select(["code", "name", "department_name"]).where("code", "in", codes).execute(),
    placed ? loadGazetteer(db) : [],
    options.thumbnails
      ? thumbnailsFor(
          db,
          rows.map((r) => r.id),
        )
      : new Map<number, Thumbnail>(),
  ]);
  return {
    categories: new Map(categories.map((c) => [c.code, c])),
    gazetteer,
    places: new Map(gazetteer.map((p) => [p.id, p.name])),
    thumbnails,
  };
}

/**
 * The thumbnail of the first public photo of each of the given reports, when the report itself is public, in one
 * query for a whole page (hidden and removed photos, and every photo of a report the public cannot see, never
 * appear: core/visibility.ts). Site-relative URLs, for pages.
 */
export async function thumbnailsFor(db: Kysely<DB>, reportIds: number[]): Promise<Map<number, Thumbnail>> {
  const map = new Map<number, Thumbnail>();
  if (reportIds.length === 0) return map;
  const photos = await db
    .selectFrom("report_photos")
    .innerJoin("reports", "reports.id", "report_photos.report_id")
    .select(["report_photos.report_id", "report_photos.hash", "report_photos.width", "report_photos.height"])
    .where("report_photos.report_id", "in", reportIds.slice(0, 1000))
    .where(publicReport)
    .where(publicPhoto)
    .orderBy("report_photos.report_id")
    .orderBy("report_photos.position")
    .execute();
  for (const p of photos) {
    if (map.has(p.report_id)) continue;
    const scale = LIST_THUMB_SIZE / Math.max(p.width, p.height, 1);
    map.set(p.report_id, {
      url: reportPhotoUrl("", p.hash, "thumb"),
      width: Math.max(1, Math.round(p.width * scale)),
      height: Math.max(1, Math.round(p.height * scale)),
    });
  }
  return map;
}

/**
 * For a list of reports read elsewhere (My reports): each one's place in words and, when the report and a photo of
 * it are public, its thumbnail, in two queries for the whole list.
 */
export async function listExtras(
  db: Kysely<DB>,
  rows: Pick<Report, "id" | "latitude" | "longitude" | "place_id" | "location_text">[],
): Promise<Map<number, { placeInWords: string | null; thumbnail: Thumbnail | null }>> {
  const [gazetteer, thumbnails] = await Promise.all([
    rows.length > 0 ? loadGazetteer(db) : [],
    thumbnailsFor(
      db,
      rows.map((r) => r.id),
    ),
  ]);
  const names = new Map(gazetteer.map((p) => [p.id, p.name]));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        placeInWords: describePlace(
          {
            lat: r.latitude,
            lng: r.longitude,
            placeName: r.place_id ? (names.get(r.place_id) ?? null) : null,
            locationText: r.location_text,
          },
          gazetteer,
        ),
        thumbnail: thumbnails.get(r.id) ?? null,
      },
    ]),
  );
}

function present(row: PublicReportColumns, names: Names): PublicReport {
  const category = names.categories.get(row.category_code);
  const placeName = row.place_id ? (names.places.get(row.place_id) ?? null) : null;
  return {
    reference: row.reference,
    title: row.title,
    description: row.description,
    categoryCode: row.category_code,
    categoryName: category?.name ?? row.category_code,
    status: row.status,
    statusLabel: STATUS_LABELS[row.status],
    open311Status: open311Status(row.status),
    lat: row.latitude,
    lng: row.longitude,
    locationText: row.location_text,
    placeName,
    placeInWords: describePlace(
      { lat: row.latitude, lng: row.longitude, placeName, locationText: row.location_text },
      names.gazetteer,
    ),
    thumbnail: names.thumbnails.get(row.id) ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    forwardedAt: row.forwarded_at,
    forwardedToName: row.forwarded_at ? (category?.department_name ?? null) : null,
  };
}

/**
 * Presents a page of a list: with each report's first public photo as a thumbnail (one more query for the page)
 * unless `thumbnails: false` (feeds).
 */
export async function presentAll(
  db: Kysely<DB>,
  rows: PublicReportColumns[],
  options: { thumbnails?: boolean } = {},
): Promise<PublicReport[]> {
  const names = await namesFor(db, rows, { thumbnails: options.thumbnails ?? true });
  return rows.map((r) => present(r, names));
}

function allReports(db: Kysely<DB>) {
  return db.selectFrom("reports");
}

function publicReports(db: Kysely<DB>) {
  return allReports(db).where(publicReport);
}

export interface ReportFilter {
  category?: string | undefined;
  status?: ReportStatus | undefined;
  /** Only reports still being dealt with: fixed, closed, duplicate and not-the-council's ones left out. */
  unresolved?: boolean | undefined;
}

/**
 * Where a page starts: `offset` rows in (old links), or by keyset, the reports just older (`before`) or just newer
 * (`after`) than the report with that reference, so a deep page costs what the first one does.
 */
export type PageStart = { offset: number } | { before: string } | { after: string };

/**
 * Public reports, newest first, one page at a time, with the total for pagination (from the counts kept by triggers,
 * reports/counts.ts; `withTotal: false` skips it); null when a cursor is unknown. Each with its thumbnail unless
 * `thumbnails: false` (feeds).
 */
export async function listPublicReports(
  db: Kysely<DB>,
  filter: ReportFilter,
  page: PageStart & { limit: number; withTotal?: boolean; thumbnails?: boolean },
): Promise<{ items: PublicReport[]; total: number } | null> {
  let q = publicReports(db);
  if (filter.category) q = q.where("reports.category_code", "=", filter.category);
  if (filter.status) q = q.where("reports.status", "=", filter.status);
  if (filter.unresolved) q = q.where("reports.status", "in", UNRESOLVED_STATUSES);
  const count = page.withTotal === false ? Promise.resolve(0) : publicReportCount(db, filter);
  let rows;
  if ("offset" in page) {
    rows = await q
      .select(PUBLIC_REPORT_COLUMNS)
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc")
      .offset(page.offset)
      .limit(page.limit)
      .execute();
  } else {
    const older = "before" in page;
    const cursor = await db
      .selectFrom("reports")
      .select(["created_at", "id"])
      .where("reference", "=", older ? page.before : page.after)
      .executeTakeFirst();
    if (!cursor) return null;
    const direction = older ? "desc" : "asc";
    rows = await q
      .select(PUBLIC_REPORT_COLUMNS)
      // The plain bound on created_at lets both databases seek the (…, created_at) indexes; the tuple breaks ties.
      .where("reports.created_at", older ? "<=" : ">=", cursor.created_at)
      .where((eb) =>
        eb(eb.refTuple("reports.created_at", "reports.id"), older ? "<" : ">", eb.tuple(cursor.created_at, cursor.id)),
      )
      .orderBy("reports.created_at", direction)
      .orderBy("reports.id", direction)
      .limit(page.limit)
      .execute();
    if (!older) rows.reverse();
  }
  return { items: await presentAll(db, rows, { thumbnails: page.thumbnails ?? true }), total: await count };
}

/** The newest public update of each of the given reports (for feeds), by reference. */
export async function latestUpdates(db: Kysely<DB>, references: string[]): Promise<Map<string, PublicUpdate>> {
  if (references.length === 0) return new Map();
  const rows = await db
    .selectFrom("report_updates")
    .innerJoin("reports", "reports.id", "report_updates.report_id")
    .select([
      "reports.reference",
      "report_updates.id",
      "report_updates.visibility",
      "report_updates.status",
      "report_updates.note",
      "report_updates.created_at",
      "report_updates.author_kind",
      "report_updates.event",
    ])
    .where("reports.reference", "in", references.slice(0, 1000))
    // Hidden or removed reports and updates never reach a feed (core/visibility.ts).
    .where(publicReport)
    .where(publicUpdate)
    .orderBy("report_updates.created_at")
    .orderBy("report_updates.id")
    .execute();
  const map = new Map<string, PublicUpdate>();
  for (const u of rows) {
    map.set(u.reference, {
      id: u.id,
      visibility: u.visibility,
      status: u.status,
      statusLabel: STATUS_LABELS[u.status],
      note: u.note,
      at: u.created_at,
      by: u.author_kind,
      event: u.event,
    });
  }
  return map;
}

export type ReportLookup =
  { kind: "found"; report: PublicReportDetail } | { kind: "removed" } | { kind: "hidden" } | { kind: "unknown" };

/**
 * A report by reference with its photos and public history, or why it cannot be shown. Photo URLs are absolute on
 * `baseUrl`; pass "" for site-relative paths (pages). `staff` also finds hidden and removed reports (marked by
 * `visibility`) with their hidden updates and photos.
 */
export async function findReport(
  db: Kysely<DB>,
  baseUrl: string,
  reference: string,
  options: { staff?: boolean } = {},
): Promise<ReportLookup> {
  const visibility = await db
    .selectFrom("reports")
    .select(["id", "visibility"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (!visibility) return { kind: "unknown" };
  if (!options.staff && visibility.visibility === "removed") return { kind: "removed" };
  if (!options.staff && visibility.visibility === "hidden") return { kind: "hidden" };
  const row = await (options.staff ? allReports(db) : publicReports(db))
    .select([...PUBLIC_REPORT_COLUMNS, "reports.moderated_at", "reports.visibility"])
    .where("reports.id", "=", visibility.id)
    .executeTakeFirst();
  if (!row) return { kind: "unknown" };
  let photoQuery = db
    .selectFrom("report_photos")
    .select(["id", "hash", "width", "height", "visibility", "update_id"])
    .where("report_id", "=", row.id)
    .orderBy("position");
  let updateQuery = db
    .selectFrom("report_updates")
    .select(["id", "status", "note", "created_at", "visibility", "author_kind", "event"])
    .where("report_id", "=", row.id)
    .orderBy("created_at")
    .orderBy("id");
  if (!options.staff) {
    photoQuery = photoQuery.where(publicPhoto);
    updateQuery = updateQuery.where(publicUpdate);
  }
  const [photos, updates] = await Promise.all([photoQuery.execute(), updateQuery.execute()]);
  return {
    kind: "found",
    report: {
      ...present(row, await namesFor(db, [row])),
      moderatedAt: row.moderated_at,
      visibility: row.visibility,
      photos: photos.map((p) => ({
        id: p.id,
        visibility: p.visibility,
        full: reportPhotoUrl(baseUrl, p.hash, "full"),
        thumb: reportPhotoUrl(baseUrl, p.hash, "thumb"),
        width: p.width,
        height: p.height,
        updateId: p.update_id,
      })),
      history: updates.map((u) => ({
        id: u.id,
        visibility: u.visibility,
        status: u.status,
        statusLabel: STATUS_LABELS[u.status],
        note: u.note,
        at: u.created_at,
        by: u.author_kind,
        event: u.event,
      })),
    },
  };
}

export { distanceMetres };

export interface NearbyReport extends PublicReport {
  distanceM: number;
}

/** The statuses of a report still being dealt with (for "already reported?"). */
const OPEN_STATUSES: ReportStatus[] = ["open", "investigating", "in_progress", "action_scheduled"];

/**
 * "Already reported?": public reports of the same category near a point that are still being dealt with, nearest
 * first. The grid cells around the point (the near-here cells of the Open311 API) are read from
 * reports_category_cell (migration 0019), which holds category, cell, status and position, so only the nearest
 * few reports are read; the exact distance is computed here.
 */
export async function nearbyReports(
  db: Kysely<DB>,
  near: { categoryCode: string; lat: number; lng: number },
  radiusM = 250,
  limit = 5,
): Promise<NearbyReport[]> {
  const dLat = radiusM / 111_320;
  const mPerDegLng = 111_320 * Math.max(Math.cos((near.lat * Math.PI) / 180), 0.01);
  const dLng = radiusM / mPerDegLng;
  const cells = cellsCovering(near.lat - dLat, near.lng - dLng, near.lat + dLat, near.lng + dLng);
  let q = publicReports(db)
    .select(PUBLIC_REPORT_COLUMNS)
    .where("reports.category_code", "=", near.categoryCode)
    .where("reports.status", "in", OPEN_STATUSES);
  if (cells) {
    const dy = sql`(latitude - ${near.lat}) * ${111_320}`;
    const dx = sql`(longitude - ${near.lng}) * ${mPerDegLng}`;
    // A little wider than the radius: the exact (great-circle) distance decides below.
    const reach = (radiusM * 1.01) ** 2;
    q = q.where(
      "reports.id",
      "in",
      sql<number>`(select id from reports where category_code = ${near.categoryCode} and ${publicVisibilitySql} and ${geoCellSql(db)} in (${sql.join(cells)}) and status in (${sql.join(OPEN_STATUSES)}) and (${dy}) * (${dy}) + (${dx}) * (${dx}) <= ${reach} order by (${dy}) * (${dy}) + (${dx}) * (${dx}) limit ${limit * 2})`,
    );
  } else {
    q = q
      .where("reports.latitude", ">=", near.lat - dLat)
      .where("reports.latitude", "<=", near.lat + dLat)
      .where("reports.longitude", ">=", near.lng - dLng)
      .where("reports.longitude", "<=", near.lng + dLng)
      .orderBy("reports.created_at", "desc")
      .limit(100);
  }
  const rows = await q.execute();
  const names = await namesFor(db, rows);
  return rows
    .map((r) => ({
      ...present(r, names),
      distanceM: distanceMetres(near.lat, near.lng, r.latitude ?? 0, r.longitude ?? 0),
    }))
    .filter((r) => r.distanceM <= radiusM)
    .sort((a, b) => a.distanceM - b.distanceM)
    .slice(0, limit);
}

/** How far around a place the list of reports near it reaches. */
export const NEAR_RADIUS_M = 300;

/**
 * Public reports within `radiusM` of a point, nearest first, one page at a time, with the filters of the list and
 * the total. The grid cells around the point (the index of migration 0019) find the candidates; the planar distance
 * (exact enough across a village) orders them, and each report's great-circle distance is given.
 */
export async function publicReportsNear(
  db: Kysely<DB>,
  near: { lat: number; lng: number },
  filter: ReportFilter,
  page: { offset: number; limit: number },
  radiusM = NEAR_RADIUS_M,
): Promise<{ items: NearbyReport[]; total: number }> {
  const dLat = radiusM / 111_320;
  const mPerDegLng = 111_320 * Math.max(Math.cos((near.lat * Math.PI) / 180), 0.01);
  const dLng = radiusM / mPerDegLng;
  const dy = sql`(latitude - ${near.lat}) * ${111_320}`;
  const dx = sql`(longitude - ${near.lng}) * ${mPerDegLng}`;
  const squared = sql<number>`(${dy}) * (${dy}) + (${dx}) * (${dx})`;
  let q = publicReports(db)
    .where("reports.latitude", ">=", near.lat - dLat)
    .where("reports.latitude", "<=", near.lat + dLat)
    .where("reports.longitude", ">=", near.lng - dLng)
    .where("reports.longitude", "<=", near.lng + dLng)
    .where(sql<boolean>`${squared} <= ${radiusM * radiusM}`);
  const cells = cellsCovering(near.lat - dLat, near.lng - dLng, near.lat + dLat, near.lng + dLng);
  if (cells) q = q.where(sql<boolean>`${geoCellSql(db)} in (${sql.join(cells)})`);
  if (filter.category) q = q.where("reports.category_code", "=", filter.category);
  if (filter.status) q = q.where("reports.status", "=", filter.status);
  if (filter.unresolved) q = q.where("reports.status", "in", UNRESOLVED_STATUSES);
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number | string | bigint>().as("n")).executeTakeFirst(),
    q
      .select(PUBLIC_REPORT_COLUMNS)
      .orderBy(squared)
      .orderBy("reports.id", "desc")
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
  ]);
  const names = await namesFor(db, rows, { thumbnails: true });
  return {
    items: rows.map((r) => ({
      ...present(r, names),
      distanceM: distanceMetres(near.lat, near.lng, r.latitude ?? 0, r.longitude ?? 0),
    })),
    total: Number(count?.n ?? 0),
  };
}

/** The newest public reports (the home page's latest reports). */
export async function latestPublicReports(db: Kysely<DB>, limit: number): Promise<PublicReport[]> {
  return (await listPublicReports(db, {}, { offset: 0, limit, withTotal: false }))?.items ?? [];
}

/** Public categories for the form and the filters, in their display order. */
export async function publicCategories(db: Kysely<DB>) {
  return db
    .selectFrom("categories")
    .selectAll()
    .where("is_public", "=", 1)
    .orderBy("sort_order")
    .orderBy("name")
    .execute();
}
