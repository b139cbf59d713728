import { type Kysely, PostgresAdapter, sql } from "kysely";
import { toRowFields } from "../businesses/model.js";
import type { DB, ReportStatus } from "../core/db/schema.js";
import type { DemoBusiness } from "./types.js";
import { linkDepartments } from "../catalogue/departments.js";
import { businesses, categories, councillors, places, projects, reports } from "./village.js";

const DAY = 24 * 60 * 60 * 1000;

/** True when nothing has been loaded yet: no categories and no businesses. */
export async function isDatabaseEmpty(db: Kysely<DB>): Promise<boolean> {
  const [cat, biz] = await Promise.all([
    db.selectFrom("categories").select("code").limit(1).executeTakeFirst(),
    db.selectFrom("businesses").select("id").limit(1).executeTakeFirst(),
  ]);
  return !cat && !biz;
}

/** Row values for a demo business, in the businesses table's shape (through the directory's own mapping). */
export function businessRow(b: DemoBusiness, at: string) {
  return {
    ...toRowFields({
      ...b,
      telephone: b.telephone ?? null,
      email: b.email ?? null,
      url: b.url ?? null,
      image: b.image ?? null,
      sameAs: b.sameAs ?? [],
    }),
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
}

/**
 * Demo reference numbers are fixed so the demo is the same on every machine (real ones are random).
 * "D" never appears in generated references, so they cannot collide.
 */
export function demoReference(index: number): string {
  return `DEMO-${String(index + 1).padStart(4, "0")}`;
}

/** The PostgreSQL advisory lock that seeding holds (any constant of its own; "civic-seed" in ASCII, in 32 bits). */
const SEED_LOCK = 0x63697664;

/**
 * Loads the fictional demo village into an empty database: gazetteer, councillors, projects, businesses (with their
 * change log), report categories and reports with their public status history. Deterministic apart from `now`,
 * which anchors the reports' relative dates. Returns false, changing nothing, when the database is not empty.
 *
 * Like migrating, seeding happens once however many processes start together on one database: it runs in one
 * transaction that first takes a transaction-scoped advisory lock on PostgreSQL and then checks the database is
 * still empty, so a second instance waits for the first one's commit and then finds the village there. (A SQLite
 * file has one process, and its transaction holds the write lock from the first insert.)
 */
export async function seedDemoVillage(db: Kysely<DB>, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  return db.transaction().execute(async (tx) => {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await sql`select pg_advisory_xact_lock(${SEED_LOCK})`.execute(tx);
    }
    if (!(await isDatabaseEmpty(tx))) return false;
    await tx
      .insertInto("places")
      .values(places.map((p) => ({ id: p.id, name: p.name, kind: p.kind, latitude: p.lat, longitude: p.lng })))
      .execute();
    await tx
      .insertInto("councillors")
      .values(
        councillors.map((c, i) => ({
          id: c.id,
          name: c.name,
          role: c.role,
          ward: c.ward,
          party: c.party,
          email: c.email,
          phone: c.phone,
          surgery: c.surgery,
          responsibilities: JSON.stringify(c.responsibilities),
          sort_order: i,
        })),
      )
      .execute();
    await tx
      .insertInto("projects")
      .values(
        projects.map((p) => ({
          id: p.id,
          title: p.title,
          summary: p.summary,
          body: p.body,
          status: p.status,
          started_on: p.startedOn,
          lead: p.lead,
          volunteers_wanted: p.volunteersWanted ? 1 : 0,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    await tx
      .insertInto("businesses")
      .values(businesses.map((b) => businessRow(b, at)))
      .execute();
    await tx
      .insertInto("business_changes")
      .values(businesses.map((b) => ({ business_id: b.id, kind: "added" as const, changed_at: at })))
      .execute();
    await tx
      .insertInto("categories")
      .values(
        categories.map((c, i) => ({
          code: c.code,
          name: c.name,
          description: c.description,
          group_name: c.group,
          keywords: JSON.stringify(c.keywords),
          department_name: c.departmentName,
          department_email: c.departmentEmail,
          attributes: JSON.stringify(c.attributes),
          is_public: 1,
          sort_order: i,
        })),
      )
      .execute();
    await linkDepartments(tx, at);

    const ordered = reports
      .map((r, i) => ({ r, i }))
      .sort((a, b) => b.r.createdDaysAgo - a.r.createdDaysAgo || a.i - b.i);
    for (const [n, { r }] of ordered.entries()) {
      const last = r.history.at(-1);
      const status: ReportStatus = last?.status ?? "open";
      const created = ago(r.createdDaysAgo);
      const inserted = await tx
        .insertInto("reports")
        .values({
          reference: demoReference(n),
          category_code: r.categoryCode,
          title: r.title,
          description: r.description,
          latitude: r.lat,
          longitude: r.lng,
          location_text: r.locationText,
          place_id: r.placeId,
          address_id: null,
          attributes: JSON.stringify(r.attributes),
          status,
          visibility: "public",
          share_contact: 0,
          source: "demo",
          created_at: created,
          updated_at: last ? ago(last.daysAgo) : created,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      let previous: ReportStatus = "open";
      const updates = [
        { status: "open" as ReportStatus, previous: null as ReportStatus | null, note: "", at: created },
      ];
      for (const h of r.history) {
        updates.push({ status: h.status, previous, note: h.note, at: ago(h.daysAgo) });
        previous = h.status;
      }
      await tx
        .insertInto("report_updates")
        .values(
          updates.map((u) => ({
            report_id: inserted.id,
            status: u.status,
            previous_status: u.previous,
            note: u.note,
            created_at: u.at,
          })),
        )
        .execute();
    }
    return true;
  });
}
