import type { Kysely } from "kysely";
import type { DB, ReportVisibility } from "../../core/db/schema.js";
import {
  type AuthorStanding,
  type ItemDecision,
  type ItemFlag,
  type ItemKey,
  authorStanding,
  moderationRecord,
} from "../../moderation/index.js";
import { type StaffPhoto, staffPhotos } from "./photos.js";

/** At most this many of an author's reports are looked at for their flags. */
const MAX_AUTHOR_REPORTS = 500;

/** What a report's staff view shows for moderating it: its photos, updates, flags, decisions and its author's standing. */
export interface ReportModeration {
  photos: StaffPhoto[];
  /** The public updates (not the first "Reported" entry), each of which can be hidden on its own. */
  updates: { id: number; note: string; at: string; visibility: ReportVisibility }[];
  flags: ItemFlag[];
  decisions: ItemDecision[];
  /** Counts only; null when the report was made without an account. */
  author: (AuthorStanding & { reports: number }) | null;
  /** The reporter's original text when a moderator has edited it (staff only). */
  original: { title: string; description: string } | null;
}

/** The moderation side of one report's staff view (the report's id and reference from loadStaffReport). */
export async function loadReportModeration(
  db: Kysely<DB>,
  report: { id: number; reference: string },
  now: Date,
): Promise<ReportModeration> {
  const [row, photos, updates] = await Promise.all([
    db
      .selectFrom("reports")
      .select(["account_id", "original_title", "original_description"])
      .where("id", "=", report.id)
      .executeTakeFirstOrThrow(),
    staffPhotos(db, report.id, report.reference),
    db
      .selectFrom("report_updates")
      .select(["id", "note", "created_at", "visibility"])
      .where("report_id", "=", report.id)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
  ]);
  const items: ItemKey[] = [
    { kind: "report", id: report.reference },
    ...photos.map((p) => ({ kind: "photo", id: String(p.id) })),
    ...updates.map((u) => ({ kind: "update", id: String(u.id) })),
  ];
  const record = await moderationRecord(db, items);
  let author: ReportModeration["author"] = null;
  if (row.account_id !== null) {
    const theirs = await db
      .selectFrom("reports")
      .select(["id", "reference"])
      .where("account_id", "=", row.account_id)
      .orderBy("id", "desc")
      .limit(MAX_AUTHOR_REPORTS)
      .execute();
    const count = await db
      .selectFrom("reports")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", row.account_id)
      .executeTakeFirstOrThrow();
    const theirPhotos =
      theirs.length === 0
        ? []
        : await db
            .selectFrom("report_photos")
            .select("id")
            .where(
              "report_id",
              "in",
              theirs.map((r) => r.id),
            )
            .limit(MAX_AUTHOR_REPORTS * 4)
            .execute();
    const standing = await authorStanding(
      db,
      row.account_id,
      [
        ...theirs.map((r) => ({ kind: "report", id: r.reference })),
        ...theirPhotos.map((p) => ({ kind: "photo", id: String(p.id) })),
      ],
      now,
    );
    author = { ...standing, reports: Number(count.n) };
  }
  return {
    photos,
    // The first update is the report itself ("Reported"): it is moderated with the report.
    updates: updates.slice(1).map((u) => ({ id: u.id, note: u.note, at: u.created_at, visibility: u.visibility })),
    flags: record.flags,
    decisions: record.decisions,
    author,
    original:
      row.original_title !== null && row.original_description !== null
        ? { title: row.original_title, description: row.original_description }
        : null,
  };
}
