import { type Kysely, sql } from "kysely";
import type { DB, ReportStatus } from "../../core/db/schema.js";
import { openFlagCounts } from "../../moderation/index.js";
import { UNRESOLVED_STATUSES } from "../model.js";
import { type Bbox, type MapAnswer, POINT_COLUMNS, pointsAnswer, round } from "../map-data.js";
import { describePlace, loadGazetteer } from "../place-words.js";
import { looksLikeReference, normaliseReference } from "../reference.js";

export interface InboxFilter {
  status?: ReportStatus;
  category?: string;
  /** ISO dates (inclusive) on the report's creation. */
  from?: string;
  to?: string;
  /** A reference, or words in the title or description. */
  q?: string;
  /** An account id, or "none" for unassigned reports. */
  assigned?: string;
}

/**
 * The inbox's orders. "": unreviewed (open) reports first, then the ones most people have seen too, then the newest;
 * "oldest": the longest waiting first; "newest"; "seen": most "seen too" first, then the oldest.
 */
export const INBOX_SORTS = ["", "oldest", "newest", "seen"] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

export interface InboxRow {
  reference: string;
  title: string;
  categoryName: string;
  status: ReportStatus;
  visibility: string;
  createdAt: string;
  assignedTo: string | null;
  /** Whole days since it was made. */
  ageDays: number;
  /** Whether it is still being dealt with (its age is how long it has been open). */
  unresolved: boolean;
  /** Where, in words (place-words.ts); null when nowhere. */
  placeInWords: string | null;
  /** Open flags ("Report this") on the report itself. */
  flags: number;
  /** How many people said they have seen it too. */
  seen: number;
}

export const INBOX_PAGE_SIZE = 50;

/** Escapes LIKE wildcards so a search for "50%" means the text "50%". */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The reports an inbox filter matches, every visibility (staff see what staff can see). */
export function inboxQuery(db: Kysely<DB>, filter: InboxFilter) {
  let q = db
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("accounts", "accounts.id", "reports.assigned_to");
  if (filter.status) q = q.where("reports.status", "=", filter.status);
  if (filter.assigned === "none") q = q.where("reports.assigned_to", "is", null);
  else if (filter.assigned) q = q.where("reports.assigned_to", "=", filter.assigned);
  if (filter.category) q = q.where("reports.category_code", "=", filter.category);
  if (filter.from) q = q.where("reports.created_at", ">=", `${filter.from}T00:00:00.000Z`);
  if (filter.to) q = q.where("reports.created_at", "<=", `${filter.to}T23:59:59.999Z`);
  const search = filter.q?.trim();
  if (search) {
    const reference = normaliseReference(search);
    if (looksLikeReference(reference)) {
      q = q.where("reports.reference", "=", reference);
    } else {
      // Every word must appear in the title or the description (at most 8 words).
      for (const word of search.split(/\s+/).slice(0, 8)) {
        const pattern = likePattern(word);
        q = q.where((eb) =>
          eb.or([
            eb(sql`lower(reports.title)`, "like", sql`${pattern} escape '\\'`),
            eb(sql`lower(reports.description)`, "like", sql`${pattern} escape '\\'`),
          ]),
        );
      }
    }
  }
  return q;
}

const seenCountSql = sql<number>`(select count(*) from report_seen where report_seen.report_id = reports.id)`;

/**
 * The triage inbox, in the order asked for (INBOX_SORTS), every visibility; each report with its age, its place in
 * words (one gazetteer read for the page), its open flags and its "seen too" count.
 */
export async function listInbox(
  db: Kysely<DB>,
  filter: InboxFilter,
  page: number,
  sort: InboxSort = "",
  now: Date = new Date(),
): Promise<{ rows: InboxRow[]; total: number }> {
  const q = inboxQuery(db, filter);
  let ordered = q.select([
    "reports.id",
    "reports.reference",
    "reports.title",
    "categories.name as category_name",
    "reports.status",
    "reports.visibility",
    "reports.created_at",
    "reports.latitude",
    "reports.longitude",
    "reports.place_id",
    "reports.location_text",
    "accounts.name as assignee_name",
    "accounts.email as assignee_email",
    seenCountSql.as("seen_count"),
  ]);
  if (sort === "oldest") ordered = ordered.orderBy("reports.created_at", "asc").orderBy("reports.id", "asc");
  else if (sort === "newest") ordered = ordered.orderBy("reports.created_at", "desc").orderBy("reports.id", "desc");
  else if (sort === "seen") {
    ordered = ordered
      .orderBy(sql`seen_count`, "desc")
      .orderBy("reports.created_at", "asc")
      .orderBy("reports.id", "asc");
  } else {
    ordered = ordered
      .orderBy(sql`case when reports.status = 'open' then 0 else 1 end`)
      .orderBy(sql`seen_count`, "desc")
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc");
  }
  const [rows, count] = await Promise.all([
    ordered
      .limit(INBOX_PAGE_SIZE)
      .offset((page - 1) * INBOX_PAGE_SIZE)
      .execute(),
    q.select((eb) => eb.fn.countAll<string | number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  const placed = rows.some((r) => r.latitude !== null || r.place_id !== null);
  const [gazetteer, flags] = await Promise.all([
    placed ? loadGazetteer(db) : [],
    openFlagCounts(
      db,
      "report",
      rows.map((r) => r.reference),
    ),
  ]);
  const names = new Map(gazetteer.map((p) => [p.id, p.name]));
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      reference: r.reference,
      title: r.title,
      categoryName: r.category_name,
      status: r.status,
      visibility: r.visibility,
      createdAt: r.created_at,
      assignedTo: r.assignee_name ?? r.assignee_email ?? null,
      ageDays: Math.max(0, Math.floor((now.getTime() - Date.parse(r.created_at)) / 86_400_000)),
      unresolved: (UNRESOLVED_STATUSES as readonly string[]).includes(r.status),
      placeInWords: describePlace(
        {
          lat: r.latitude,
          lng: r.longitude,
          placeName: r.place_id ? (names.get(r.place_id) ?? null) : null,
          locationText: r.location_text,
        },
        gazetteer,
      ),
      flags: flags.get(r.reference) ?? 0,
      seen: Number(r.seen_count),
    })),
  };
}

/** At most this many reports of the filtered inbox are sent one by one to its map; past it, counted per cell. */
const STAFF_MAP_POINTS = 500;
/** Past STAFF_MAP_POINTS, at most this many reports are counted into cells (their newest first). */
const STAFF_MAP_COUNTED = 20_000;
const CELLS_ACROSS = 32;

/**
 * The filtered inbox on a map (the reports map's answer, map-data.ts MapAnswer): every visibility, as staff see
 * it. Each report in the box when there are at most STAFF_MAP_POINTS; otherwise counted per cell of a grid of
 * about 32 × 32 over the box (the inbox's filters make the usual pre-counted cells, which hold public reports only,
 * unusable here).
 */
export async function staffMapReports(
  db: Kysely<DB>,
  filter: InboxFilter,
  box: Bbox,
  zoom: number,
): Promise<MapAnswer> {
  const [west, south, east, north] = box;
  const q = inboxQuery(db, filter)
    .where("reports.latitude", ">=", south)
    .where("reports.latitude", "<=", north)
    .where("reports.longitude", ">=", west)
    .where("reports.longitude", "<=", east);
  const rows = await q
    .select(POINT_COLUMNS)
    .orderBy("reports.created_at", "desc")
    .orderBy("reports.id", "desc")
    .limit(STAFF_MAP_POINTS + 1)
    .execute();
  if (rows.length <= STAFF_MAP_POINTS) return pointsAnswer(rows, box, zoom);
  const all = await q
    .select(["reports.latitude", "reports.longitude"])
    .orderBy("reports.created_at", "desc")
    .limit(STAFF_MAP_COUNTED)
    .execute();
  const lngCell = Math.max((east - west) / CELLS_ACROSS, 1e-6);
  const latCell = Math.max((north - south) / CELLS_ACROSS, 1e-6);
  const cells = new Map<string, { lat: number; lng: number; n: number }>();
  for (const r of all) {
    const lat = r.latitude ?? 0;
    const lng = r.longitude ?? 0;
    const key = `${Math.floor((lat - south) / latCell)}:${Math.floor((lng - west) / lngCell)}`;
    const cell = cells.get(key) ?? { lat: 0, lng: 0, n: 0 };
    cell.lat += lat;
    cell.lng += lng;
    cell.n += 1;
    cells.set(key, cell);
  }
  return {
    bbox: box,
    zoom,
    total: all.length,
    points: [],
    clusters: [...cells.values()].map((c) => [round(c.lat / c.n), round(c.lng / c.n), c.n]),
  };
}
