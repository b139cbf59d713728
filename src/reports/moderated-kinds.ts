import { type Kysely, sql } from "kysely";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { parseId } from "../core/http/ids.js";
import type {
  ModeratedItem,
  ModeratedKind,
  ModeratedPreview,
  ModerationContext,
  ModerationState,
} from "../core/moderation.js";
import { isPublic, publicReport, publicUpdate } from "../core/visibility.js";
import { describePlace, loadGazetteer } from "./place-words.js";
import { shownSize, staffPhotoUrl } from "./staff/photos.js";
import { recordReportEvent, type ReportEventContext, type ReportModerationAction } from "./events.js";

/** The moderation event of each state a moderator sets. */
const ACTION_OF: Record<ModerationState, ReportModerationAction> = {
  hidden: "hide",
  public: "unhide",
  removed: "remove",
};

/**
 * Moderation changes a report only through the one path (events.ts), as staff (or the platform, with no account):
 * no mail there (moderation tells the author itself) and no audit row (the decision's is the audit row).
 */
function eventContext(ctx: ModerationContext): ReportEventContext {
  const accountId = ctx.actorAccountId ?? null;
  return { civic: null, now: ctx.now, by: accountId ? "staff" : "system", accountId };
}

/** At most this many items of one account are hidden by one suspension (a hard cap on the loop). */
const MAX_ITEMS_PER_ACCOUNT = 10_000;

function excerpt(text: string): string {
  return text.length > 280 ? `${text.slice(0, 279)}…` : text;
}

async function reportByReference(db: Kysely<DB>, reference: string) {
  if (reference.length > 40) return undefined;
  return db
    .selectFrom("reports")
    .select(["id", "reference", "title", "description", "visibility", "account_id", "reporter_email", "withheld"])
    .where("reference", "=", reference)
    .executeTakeFirst();
}

/** Longest side of a thumbnail in the moderation queue, in CSS pixels. */
const QUEUE_THUMB_SIZE = 120;

/**
 * What the moderation queue shows beside a report, photo or update: the photo (the flagged one, or the report's
 * first, hidden ones included: the queue is for staff) at its staff address, and the report's place in words.
 */
async function reportPreview(
  db: Kysely<DB>,
  reportId: number,
  photo: number | "first" | "none",
): Promise<ModeratedPreview> {
  const report = await db
    .selectFrom("reports")
    .select(["reference", "latitude", "longitude", "location_text", "place_id"])
    .where("id", "=", reportId)
    .executeTakeFirstOrThrow();
  let photos = db
    .selectFrom("report_photos")
    .select(["id", "width", "height", "visibility"])
    .where("report_id", "=", reportId);
  if (typeof photo === "number") photos = photos.where("id", "=", photo);
  const [shown, gazetteer] = await Promise.all([
    photo === "none" ? undefined : photos.orderBy("position").orderBy("id").limit(1).executeTakeFirst(),
    loadGazetteer(db),
  ]);
  const placeName = report.place_id ? (gazetteer.find((p) => p.id === report.place_id)?.name ?? null) : null;
  return {
    thumbnail: shown
      ? {
          url: staffPhotoUrl(report.reference, shown.id, "thumb"),
          alt: `Photo ${shown.id} of report ${report.reference}${isPublic(shown.visibility) ? "" : ` (${shown.visibility})`}`,
          ...shownSize(shown, QUEUE_THUMB_SIZE),
        }
      : null,
    place: describePlace(
      { lat: report.latitude, lng: report.longitude, placeName, locationText: report.location_text },
      gazetteer,
    ),
  };
}

export const reportKind: ModeratedKind = {
  kind: "report",
  noun: "report",
  async load({ db }, id): Promise<ModeratedItem | null> {
    const r = await reportByReference(db, id);
    if (!r) return null;
    return {
      kind: "report",
      id: r.reference,
      label: `Report ${r.reference}: ${r.title}`,
      excerpt: excerpt(r.description),
      state: r.visibility,
      publicPath: `/reports/${r.reference}`,
      staffPath: `/admin/reports/${r.reference}`,
      authorAccountId: r.account_id,
      authorEmail: r.reporter_email,
      subjectRef: `report ${r.reference}`,
    };
  },
  async preview({ db }, id) {
    const r = await reportByReference(db, id);
    return r ? reportPreview(db, r.id, "first") : null;
  },
  async setState({ db, now, actorAccountId }, id, state) {
    const r = await reportByReference(db, id);
    if (!r) throw new AppError("not_found", "There is no report with this reference.");
    if (isPublic(state) && r.withheld === 1) {
      throw new AppError(
        "validation_failed",
        "This report's sender is on the ban list, so it cannot be published. Remove the entry from the ban list first.",
        { fields: [{ field: "action", message: "the sender is on the ban list" }] },
      );
    }
    await recordReportEvent(db, eventContext({ db, now, actorAccountId }), r.id, {
      kind: "moderation",
      action: ACTION_OF[state],
    });
  },
  async redact(ctx, id, text) {
    const r = await reportByReference(ctx.db, id);
    if (!r) throw new AppError("not_found", "There is no report with this reference.");
    await recordReportEvent(ctx.db, eventContext(ctx), r.id, { kind: "moderation", action: "redact", ...text });
  },
  async restoreText(ctx, id) {
    const r = await reportByReference(ctx.db, id);
    if (!r) throw new AppError("not_found", "There is no report with this reference.");
    await recordReportEvent(ctx.db, eventContext(ctx), r.id, { kind: "moderation", action: "restore" });
  },
  async itemsOf({ db }, accountId) {
    const rows = await db
      .selectFrom("reports")
      .select("reference")
      .where("account_id", "=", accountId)
      .where(publicReport)
      .limit(MAX_ITEMS_PER_ACCOUNT)
      .execute();
    return rows.map((r) => r.reference);
  },
};

/** Updates and photos of a report: their own visibility; the report's page marks the report as moderated. */
function partOfReport(table: "report_updates" | "report_photos", kind: "update" | "photo"): ModeratedKind {
  async function find(db: Kysely<DB>, id: string) {
    const n = parseId(id);
    if (n === null) return undefined;
    return (
      db
        .selectFrom(table)
        .innerJoin("reports", "reports.id", `${table}.report_id`)
        .select([
          `${table}.id as id`,
          `${table}.visibility as visibility`,
          "reports.id as reportId",
          "reports.reference",
          "reports.account_id",
          "reports.reporter_email",
        ])
        .where(`${table}.id`, "=", n)
        // The records of moderation and "seen too" are no one's content (events.ts).
        .$if(table === "report_updates", (q) => q.where(sql<boolean>`report_updates.internal = 0`))
        .executeTakeFirst()
    );
  }
  const part: ModeratedKind = {
    kind,
    noun: kind,
    async load({ db }, id) {
      const row = await find(db, id);
      if (!row) return null;
      let text: string;
      let author: { accountId: string | null; email: string | null } = { accountId: null, email: null };
      if (kind === "update") {
        const u = await db
          .selectFrom("report_updates")
          .select(["note", "author_kind", "author_account_id", "author_email"])
          .where("id", "=", row.id)
          .executeTakeFirst();
        text = u?.note ?? "";
        // A resident's or the reporter's update is theirs (for strikes and the mail to its author).
        if (u && (u.author_kind === "resident" || u.author_kind === "reporter")) {
          author = { accountId: u.author_account_id, email: u.author_email };
        }
      } else {
        text = `Photo ${row.id} of report ${row.reference}`;
        author = { accountId: row.account_id, email: row.reporter_email };
      }
      return {
        kind,
        id: String(row.id),
        label: `${kind === "update" ? "Update" : "Photo"} ${row.id} on report ${row.reference}`,
        excerpt: excerpt(text),
        state: row.visibility,
        publicPath: `/reports/${row.reference}`,
        staffPath: `/admin/reports/${row.reference}`,
        // A photo is the reporter's; an update its writer's when a resident or the reporter wrote it, else staff's.
        authorAccountId: author.accountId,
        authorEmail: author.email,
        subjectRef: `${kind} on report ${row.reference}`,
      };
    },
    async preview({ db }, id) {
      const row = await find(db, id);
      return row ? reportPreview(db, row.reportId, kind === "photo" ? row.id : "none") : null;
    },
    async setState(ctx: ModerationContext, id: string, state: ModerationState) {
      const row = await find(ctx.db, id);
      if (!row) throw new AppError("not_found", `There is no ${kind} with this number.`);
      await recordReportEvent(ctx.db, eventContext(ctx), row.reportId, {
        kind: "moderation",
        action: ACTION_OF[state],
        part: { kind, id: row.id },
      });
    },
  };
  if (kind === "update") {
    // A suspension hides the account's public updates on reports with its other items.
    part.itemsOf = async ({ db }, accountId) => {
      const rows = await db
        .selectFrom("report_updates")
        .select("id")
        .where("author_account_id", "=", accountId)
        .where("author_kind", "in", ["resident", "reporter"])
        .where(publicUpdate)
        .limit(MAX_ITEMS_PER_ACCOUNT)
        .execute();
      return rows.map((r) => String(r.id));
    };
  }
  return part;
}

export const reportUpdateKind = partOfReport("report_updates", "update");
export const reportPhotoKind = partOfReport("report_photos", "photo");
