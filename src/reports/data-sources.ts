import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { forgetIdempotentAnswers } from "../core/http/idempotency.js";
import { eraseMailAbout } from "../core/mail/erase.js";
import { photoKey } from "../core/media/images.js";
import {
  type DataSubject,
  type ExportedFile,
  type PersonalDataSource,
  subjectAddresses,
} from "../core/personal-data.js";
import { accountReportScope, reportResource } from "./idempotency.js";

/** Reports that belong to the person: made while signed in, or made with one of their verified addresses. */
export function ownReports(db: Kysely<DB>, subject: DataSubject) {
  return db.selectFrom("reports").where((eb) => {
    const byEmail = eb("reporter_email", "in", subjectAddresses(subject));
    return subject.accountId ? eb.or([eb("account_id", "=", subject.accountId), byEmail]) : byEmail;
  });
}

/** Mails about a report, to its reporter or the council: erased with a report's contact details. */
const REPORT_MAIL_KINDS = ["report-confirmation", "report-forward", "report-status"] as const;

/**
 * Reports: contact details, the link to the account, the consent to share contact details with the council, and the
 * answers kept for retries of the person's submissions (idempotency_keys, through the floor's forgetIdempotentAnswers).
 */
export const reportData: PersonalDataSource = {
  key: "reports",
  tables: ["reports", "outbox", "idempotency_keys"],
  async collect({ db, storage }, subject) {
    const reports = await ownReports(db, subject).selectAll().orderBy("created_at").limit(10_000).execute();
    const ids = reports.map((r) => r.id);
    const updates = ids.length
      ? await db.selectFrom("report_updates").selectAll().where("report_id", "in", ids).orderBy("created_at").execute()
      : [];
    const photos = ids.length
      ? await db.selectFrom("report_photos").selectAll().where("report_id", "in", ids).orderBy("position").execute()
      : [];
    // Read one at a time while the download is streamed, not here (personal-data.ts).
    const byId = new Map(reports.map((r) => [r.id, r]));
    const files: ExportedFile[] = [];
    for (const p of photos) {
      const report = byId.get(p.report_id);
      const key = photoKey(p.hash, "full");
      if (report)
        files.push({ path: `photos/${report.reference}-${p.position + 1}.jpg`, read: () => storage.get(key) });
    }
    return {
      data: reports.map((r) => ({
        reference: r.reference,
        category: r.category_code,
        title: r.title,
        description: r.description,
        latitude: r.latitude,
        longitude: r.longitude,
        locationText: r.location_text,
        attributes: JSON.parse(r.attributes) as unknown,
        status: r.status,
        visibility: r.visibility,
        reporterEmail: r.reporter_email,
        reporterName: r.reporter_name,
        reporterPhone: r.reporter_phone,
        shareContactWithCouncil: r.share_contact === 1,
        madeWhileSignedIn: subject.accountId !== null && r.account_id === subject.accountId,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        forwardedAt: r.forwarded_at,
        forwardedTo: r.forwarded_to,
        history: updates
          // Records of moderation and "seen too" are no part of the history (events.ts).
          .filter((u) => u.report_id === r.id && u.internal === 0)
          .map((u) => ({ status: u.status, previousStatus: u.previous_status, note: u.note, at: u.created_at })),
        photos: photos.filter((p) => p.report_id === r.id).map((p) => `photos/${r.reference}-${p.position + 1}.jpg`),
      })),
      files,
    };
  },
  async erase({ db }, subject, options) {
    const own = await ownReports(db, subject).select(["id", "reference", "reporter_email"]).limit(100_000).execute();
    const ids = own.map((r) => r.id);
    // The answers kept for a retry of these submissions (Idempotency-Key) and their fingerprints go too, and every
    // key of the account's own scope (one whose request never finished names no report).
    await forgetIdempotentAnswers(db, {
      resources: own.map((r) => reportResource(r.reference)),
      scopes: subject.accountId ? [accountReportScope(subject.accountId)] : [],
    });
    // Mail about these reports to an address given with one (e.g. typed while signed in) goes too; mail to and
    // about the person's own addresses goes whole with the mail source.
    const given = own.map((r) => r.reporter_email).filter((v): v is string => !!v);
    await eraseMailAbout(db, given, REPORT_MAIL_KINDS);
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .updateTable("reports")
        .set({
          reporter_email: null,
          reporter_name: null,
          reporter_phone: null,
          share_contact: 0,
          account_id: null,
          device_id: null,
          ...(options.removePublicContent ? { visibility: "removed" as const } : {}),
        })
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
    }
  },
  async consents({ db }, subject) {
    const rows = await ownReports(db, subject)
      .select(["reference", "created_at"])
      .where("share_contact", "=", 1)
      .orderBy("created_at")
      .limit(1000)
      .execute();
    return rows.map((r) => ({
      id: r.reference,
      label: `The council may see your contact details for report ${r.reference}`,
      givenAt: r.created_at,
    }));
  },
  async withdraw({ db }, subject, reference) {
    const result = await db
      .updateTable("reports")
      .set({ share_contact: 0 })
      .where("reference", "=", reference)
      .where("id", "in", ownReports(db, subject).select("id"))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};

/** Updates the person wrote on reports (issue 36): signed in, or with one of their addresses. */
function ownUpdates(db: Kysely<DB>, subject: DataSubject) {
  return db
    .selectFrom("report_updates")
    .where("author_kind", "in", ["resident", "reporter"])
    .where((eb) => {
      const byEmail = eb("author_email", "in", subjectAddresses(subject));
      return subject.accountId ? eb.or([eb("author_account_id", "=", subject.accountId), byEmail]) : byEmail;
    });
}

/**
 * Updates from residents (reports/resident-updates.ts): those the person published, and those still waiting for
 * their link, with their photos. Erasure unlinks the published ones from the account and address (they stay public
 * unless the person asks to remove their public contributions: then their photos are removed with them) and deletes
 * the waiting ones with their photos.
 */
export const residentUpdateData: PersonalDataSource = {
  key: "reportUpdatesWritten",
  tables: ["report_updates", "report_update_requests", "report_photos"],
  async collect({ db, storage }, subject) {
    const [published, waiting] = await Promise.all([
      // Their written updates; their "seen too" marks and questionnaire answers are those sources' (seen-data.ts,
      // questionnaire-data.ts), though erasure below unlinks every row of theirs.
      ownUpdates(db, subject)
        .where("report_updates.event", "=", "update")
        .innerJoin("reports", "reports.id", "report_updates.report_id")
        .leftJoin("report_photos", "report_photos.update_id", "report_updates.id")
        .select([
          "report_updates.id",
          "report_photos.hash as photo_hash",
          "reports.reference",
          "report_updates.note",
          "report_updates.created_at",
          "report_updates.visibility",
          "report_updates.author_kind",
          "report_updates.author_email",
        ])
        .orderBy("report_updates.created_at")
        .limit(10_000)
        .execute(),
      db
        .selectFrom("report_update_requests")
        .innerJoin("reports", "reports.id", "report_update_requests.report_id")
        .select([
          "report_update_requests.id",
          "report_update_requests.photo_hash",
          "reports.reference",
          "report_update_requests.note",
          "report_update_requests.email",
          "report_update_requests.created_at",
        ])
        .where("report_update_requests.email", "in", subjectAddresses(subject))
        .orderBy("report_update_requests.id")
        .limit(10_000)
        .execute(),
    ]);
    // An update's photo (resident-updates.ts), read one at a time while the download is streamed.
    const files: ExportedFile[] = [];
    const photoOf = (hash: string | null, path: string) => {
      if (hash === null) return null;
      const key = photoKey(hash, "full");
      files.push({ path, read: () => storage.get(key) });
      return path;
    };
    return {
      data: {
        published: published.map((u) => ({
          report: u.reference,
          note: u.note,
          at: u.created_at,
          visibility: u.visibility,
          asReporter: u.author_kind === "reporter",
          email: u.author_email,
          photo: photoOf(u.photo_hash, `photos/update-${u.reference}-${u.id}.jpg`),
        })),
        waitingForConfirmation: waiting.map((u) => ({
          report: u.reference,
          note: u.note,
          email: u.email,
          at: u.created_at,
          photo: photoOf(u.photo_hash, `photos/waiting-update-${u.reference}-${u.id}.jpg`),
        })),
      },
      files,
    };
  },
  async erase({ db }, subject, options) {
    const ids = (await ownUpdates(db, subject).select("report_updates.id").limit(100_000).execute()).map((u) => u.id);
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .updateTable("report_updates")
        .set({
          author_account_id: null,
          author_email: null,
          ...(options.removePublicContent ? { visibility: "removed" as const } : {}),
        })
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
      // An update's photo goes with it (a waiting one's files are a kept photo, deleted by kept-photos.ts).
      if (options.removePublicContent) {
        await db
          .updateTable("report_photos")
          .set({ visibility: "removed" })
          .where("update_id", "in", ids.slice(i, i + 500))
          .execute();
      }
    }
    await db.deleteFrom("report_update_requests").where("email", "in", subjectAddresses(subject)).execute();
  },
};
