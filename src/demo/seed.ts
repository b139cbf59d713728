import { type Kysely, PostgresAdapter, sql } from "kysely";
import { toRowFields } from "../businesses/model.js";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { photoKey, type ProcessedImage } from "../core/media/images.js";
import type { Storage } from "../core/media/storage.js";
import type { DemoBusiness, DemoPhotoScene } from "./types.js";
import { linkDepartments } from "../catalogue/departments.js";
import { demoPhoto } from "./photos.js";
import { businesses, categories, councillors, ideas, newsletterIssues, places, projects, reports } from "./village.js";

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
 * The demo reports' photos, made and put in the media storage as an upload's are (content-addressed, so a second
 * seed or a second instance writes nothing new), before the seed's transaction: like a report's upload, a file
 * whose row is never committed is harmless. Photos are the demo's garnish: when they cannot be made or stored (an
 * object store not reachable yet), the village is loaded without them rather than the server not starting.
 */
async function storeDemoPhotos(media: Storage): Promise<Map<DemoPhotoScene, ProcessedImage>> {
  const scenes = [...new Set(reports.flatMap((r) => r.photos ?? []))];
  try {
    const made = await Promise.all(scenes.map((scene) => demoPhoto(scene)));
    await Promise.all(
      made.flatMap((p) => [media.put(photoKey(p.hash, "full"), p.full), media.put(photoKey(p.hash, "thumb"), p.thumb)]),
    );
    return new Map(scenes.map((scene, i) => [scene, made[i] as ProcessedImage]));
  } catch {
    return new Map();
  }
}

/**
 * Loads the fictional demo village into an empty database: gazetteer, councillors, projects with their volunteer
 * roles and updates, businesses (with their change log), report categories, reports with their public status
 * history and (given the media storage) their photos, residents' ideas with their support and answers, and the
 * newsletter's archive (sent to nobody: the demo has no subscribers). Deterministic apart from `now`, which anchors
 * the relative dates. Returns false, changing nothing in the database, when it is not empty.
 *
 * Like migrating, seeding happens once however many processes start together on one database: it runs in one
 * transaction that first takes a transaction-scoped advisory lock on PostgreSQL and then checks the database is
 * still empty, so a second instance waits for the first one's commit and then finds the village there. (A SQLite
 * file has one process, and its transaction holds the write lock from the first insert.)
 */
export async function seedDemoVillage(db: Kysely<DB>, now: Date, media?: Storage): Promise<boolean> {
  const at = now.toISOString();
  const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  const photos = media ? await storeDemoPhotos(media) : new Map<DemoPhotoScene, ProcessedImage>();
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
          // As the staff form saves them (projects/service.ts): volunteers are wanted when there are roles.
          roles: JSON.stringify(p.roles),
          volunteers_wanted: p.roles.length > 0 ? 1 : 0,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    const projectUpdates = projects.flatMap((p) =>
      p.updates.map((u) => ({ project_id: p.id, title: u.title, body: u.body, posted_at: ago(u.daysAgo) })),
    );
    if (projectUpdates.length > 0) await tx.insertInto("project_updates").values(projectUpdates).execute();
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
            // The first row is the reporter's making of the report, the others staff's public answers (0033): the
            // report statistics time the first response from them, not from the report itself.
            author_kind: u.previous === null ? ("reporter" as const) : ("staff" as const),
            event: u.previous === null ? ("report" as const) : ("status" as const),
          })),
        )
        .execute();
      const shown = (r.photos ?? []).flatMap((scene) => photos.get(scene) ?? []);
      if (shown.length > 0) {
        await tx
          .insertInto("report_photos")
          .values(
            shown.map((p, position) => ({
              report_id: inserted.id,
              position,
              hash: p.hash,
              width: p.width,
              height: p.height,
              content_type: p.contentType,
              created_at: created,
            })),
          )
          .execute();
      }
    }

    // Published ideas, as if confirmed by their proposers (whose addresses the demo does not have) and answered by
    // staff; their support is a count, as no demo resident has an account.
    await tx
      .insertInto("ideas")
      .values(
        ideas.map((i) => ({
          title: i.title,
          description: i.description,
          category: i.category,
          place_id: i.placeId,
          location_text: i.locationText,
          photo_hash: null,
          status: i.status,
          response: i.response,
          project_id: i.projectId,
          account_id: null,
          email: null,
          supports: i.supports,
          created_at: ago(i.createdDaysAgo),
          published_at: ago(i.createdDaysAgo),
          updated_at: ago(i.answeredDaysAgo ?? i.createdDaysAgo),
        })),
      )
      .execute();
    await tx
      .insertInto("newsletter_issues")
      .values(
        newsletterIssues.map((n) => ({
          title: n.title,
          body: n.body,
          status: "sent" as const,
          created_at: ago(n.sentDaysAgo + 2),
          updated_at: ago(n.sentDaysAgo),
          send_started_at: ago(n.sentDaysAgo),
          sent_at: ago(n.sentDaysAgo),
        })),
      )
      .execute();
    return true;
  });
}
