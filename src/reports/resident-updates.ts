import type { Kysely } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB, ReportEventAuthor } from "../core/db/schema.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import { RETENTION } from "../core/jobs/retention.js";
import { issueLink, useLink } from "../core/links.js";
import { type PhotoInput, photoKey } from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import { layoutMail } from "../core/mail/layout.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { isPublic, publicReport } from "../core/visibility.js";
import { isBanned } from "../moderation/index.js";
import { recordReportEvent } from "./events.js";
import { MAX_NOTE_LENGTH } from "./model.js";
import { checkPhoto } from "./submit.js";

/**
 * Updates from residents (issue 36): anyone may add a public update to a public report, signed in (published at
 * once) or with an email address confirmed by an emailed link (core/links.ts: the link opens a page whose one
 * button confirms; until then the update waits unpublished in `report_update_requests`, and the retention job
 * deletes one never confirmed). Either way it goes through the one path (events.ts) as an "update" event by
 * "resident", or by "reporter" when its author is the report's own reporter (their account, or the address the
 * report was made with): the row, and the mails to the reporter and the followers, in one transaction. A banned
 * account or address gets the usual answer and nothing is published (moderation/ban-list.ts). Each update can be
 * reported ("Report this"); moderation's "update" kind (moderated-kinds.ts) knows its author for strikes.
 *
 * An update may carry one photo, through the report form's pipeline (submit.ts checkPhoto: limits, EXIF stripped,
 * derived sizes): a `report_photos` row of the report naming the update (`update_id`), moderated as any photo. An
 * emailed update's photo is cleaned and stored at once and waits with it (its hash on the waiting row, its files a
 * kept photo, kept-photos.ts, deleted once neither a report nor a waiting update uses them).
 */

/** The longest update a resident may write, in characters (the one limit of a report's public note). */
export const MAX_RESIDENT_UPDATE_LENGTH = MAX_NOTE_LENGTH;

/** The purpose of an update's confirmation link (core/links.ts). */
export const UPDATE_CONFIRM = "report-update";

/** The text of an update as it will be kept, or the problem to show on the form. */
export function residentUpdateText(raw: string): { note: string } | { problem: string } {
  const note = raw.replace(/\r\n?/g, "\n").trim();
  if (note === "") return { problem: "Enter the text of your update." };
  if (note.length > MAX_RESIDENT_UPDATE_LENGTH) {
    return {
      problem: `Your update must be at most ${MAX_RESIDENT_UPDATE_LENGTH.toLocaleString("en-GB")} characters (it has ${note.length.toLocaleString("en-GB")}).`,
    };
  }
  return { note };
}

/** A cleaned and stored photo of an update. */
export interface UpdatePhoto {
  hash: string;
  width: number;
  height: number;
}

/**
 * The update's optional photo: none, the cleaned photo (its files stored), or the problem to show on the form (the
 * report form's messages).
 */
export async function storeUpdatePhoto(
  civic: Civic,
  upload: PhotoInput | undefined,
): Promise<{ photo: UpdatePhoto | null } | { problem: string }> {
  if (!upload) return { photo: null };
  const checked = await checkPhoto(upload, 0, civic.config.uploads.maxPhotoBytes);
  if ("problem" in checked) return checked;
  const storage = mediaStorage(civic.config);
  const { hash, full, thumb, width, height } = checked.photo;
  await storage.put(photoKey(hash, "full"), full);
  await storage.put(photoKey(hash, "thumb"), thumb);
  // Kept until a report or a waiting update uses it (kept-photos.ts), so a refused form leaves nothing behind.
  await civic.database.db.insertInto("kept_photos").values({ hash, kept_at: civic.now().toISOString() }).execute();
  return { photo: { hash, width, height } };
}

/** Adds an update's photo to its report, after the report's own photos. */
async function addUpdatePhoto(tx: Kysely<DB>, reportId: number, updateId: number, photo: UpdatePhoto, now: Date) {
  const last = await tx
    .selectFrom("report_photos")
    .select((eb) => eb.fn.max("position").as("position"))
    .where("report_id", "=", reportId)
    .executeTakeFirst();
  await tx
    .insertInto("report_photos")
    .values({
      report_id: reportId,
      update_id: updateId,
      position: last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1,
      hash: photo.hash,
      width: photo.width,
      height: photo.height,
      content_type: "image/jpeg",
      created_at: now.toISOString(),
    })
    .execute();
}

async function publicReportByReference(db: Kysely<DB>, reference: string) {
  return db
    .selectFrom("reports")
    .select(["id", "reference", "account_id", "reporter_email"])
    .where("reference", "=", reference)
    .where(publicReport)
    .executeTakeFirst();
}

/** Whether the author is the report's reporter: their account, or the address the report was made with. */
function authorKind(
  report: { account_id: string | null; reporter_email: string | null },
  author: { accountId: string | null; emails: string[] },
): ReportEventAuthor {
  if (author.accountId && report.account_id === author.accountId) return "reporter";
  const reporter = report.reporter_email?.trim().toLowerCase();
  if (reporter && author.emails.some((e) => e.toLowerCase() === reporter)) return "reporter";
  return "resident";
}

export type SignedInResult = { kind: "published"; updateId: number } | { kind: "not-public" } | { kind: "dropped" };

/** A signed-in resident's update, published at once (in the form's single-use transaction). */
export async function addSignedInUpdate(
  civic: Civic,
  input: { reference: string; accountId: string; note: string; photo?: UpdatePhoto | null },
  recordSubmission?: RecordSubmission,
): Promise<SignedInResult> {
  const db = civic.database.db;
  const now = civic.now();
  const account = await db.selectFrom("accounts").select("email").where("id", "=", input.accountId).executeTakeFirst();
  // A banned account gets the usual answer (the report page) and nothing is published.
  if (!account || (await isBanned(db, { accountId: input.accountId, addresses: [] }))) return { kind: "dropped" };
  return db.transaction().execute(async (tx) => {
    const report = await publicReportByReference(tx, input.reference);
    if (!report) return { kind: "not-public" } as const;
    const by = authorKind(report, { accountId: input.accountId, emails: [account.email] });
    const recorded = await recordReportEvent(
      tx,
      { civic, now, by, accountId: input.accountId, email: account.email.toLowerCase() },
      report.id,
      { kind: "update", note: input.note },
    );
    if (input.photo) await addUpdatePhoto(tx, report.id, recorded.updateId, input.photo, now);
    if (recordSubmission) await recordSubmission(tx, String(recorded.updateId));
    return { kind: "published", updateId: recorded.updateId } as const;
  });
}

/**
 * An update sent with an address: kept unpublished and a confirmation link mailed (within the mail policy's caps
 * for unconfirmed addresses). Returns false when the report is not public (nothing is kept). A banned address is
 * the caller's to drop before (it answers the same).
 */
export async function requestEmailUpdate(
  civic: Civic,
  input: { reference: string; email: string; note: string; photo?: UpdatePhoto | null },
  recordSubmission?: RecordSubmission,
): Promise<boolean> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const report = await publicReportByReference(tx, input.reference);
    if (!report) return false;
    const row = await tx
      .insertInto("report_update_requests")
      .values({
        report_id: report.id,
        email: input.email,
        note: input.note,
        created_at: now.toISOString(),
        photo_hash: input.photo?.hash ?? null,
        photo_width: input.photo?.width ?? null,
        photo_height: input.photo?.height ?? null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (recordSubmission) await recordSubmission(tx, `request-${row.id}`);
    const token = await issueLink(
      tx,
      {
        purpose: UPDATE_CONFIRM,
        email: input.email,
        ref: row.id,
        expiresAt: new Date(now.getTime() + RETENTION.unconfirmedDays * 24 * 60 * 60_000),
        maxUses: 1,
      },
      now,
    );
    const link = `${civic.site.baseUrl}/reports/updates/publish/${token}`;
    await sendUnconfirmedMail(
      tx,
      { secret: civic.config.sessionSecret, now },
      layoutMail(
        civic.site,
        {
          kind: "report-update-confirm",
          to: input.email,
          subject: `Publish your update on report ${report.reference}`,
        },
        {
          heading: `Publish your update on report ${report.reference}`,
          body: [
            `Someone (we hope you) wrote an update on report ${report.reference} of the ${civic.site.villageName} Community Platform with this address. It is not published yet:`,
            { quote: input.note },
            ...(input.photo ? ["It comes with a photo, published with it."] : []),
          ],
          action: {
            lead: "To publish it, open this link and press the button on the page:",
            label: "Publish the update",
            url: link,
          },
          after: ["If it was not you, ignore this message: nothing will be published and the text will be deleted."],
          footer: {
            why: "You get this message because this address was typed into a report's update form on our site.",
          },
        },
      ),
    );
    return true;
  });
}

/** An update waiting for its link, by the link's `ref`: what its page shows. */
export async function pendingUpdate(db: Kysely<DB>, ref: string | null) {
  if (ref === null || !/^\d{1,15}$/.test(ref)) return undefined;
  return db
    .selectFrom("report_update_requests")
    .innerJoin("reports", "reports.id", "report_update_requests.report_id")
    .select([
      "report_update_requests.id",
      "report_update_requests.note",
      "report_update_requests.email",
      "report_update_requests.photo_hash",
      "report_update_requests.photo_width",
      "report_update_requests.photo_height",
      "reports.reference",
      "reports.title",
      "reports.visibility",
    ])
    .where("report_update_requests.id", "=", Number(ref))
    .executeTakeFirst();
}

export type ConfirmResult =
  /** `updateId` null: received but not published (a banned address: the usual answer, moderation/ban-list.ts). */
  | { kind: "published"; reference: string; updateId: number | null }
  | { kind: "not-public"; reference: string }
  | { kind: "gone" };

/**
 * The button of an update's link page was pressed: the link is used once, and the update published through the one
 * path (the waiting row deleted). A replay, an expired link or a forged token is "gone"; a report hidden or removed
 * meanwhile is "not-public" (the waiting update is deleted, nothing is published).
 */
export async function confirmEmailUpdate(civic: Civic, token: string): Promise<ConfirmResult> {
  const now = civic.now();
  const db = civic.database.db;
  return db.transaction().execute(async (tx): Promise<ConfirmResult> => {
    const link = await useLink(tx, UPDATE_CONFIRM, token, now);
    const pending = link ? await pendingUpdate(tx, link.ref) : undefined;
    if (!link || !pending) return { kind: "gone" };
    await tx.deleteFrom("report_update_requests").where("id", "=", pending.id).execute();
    const report = await publicReportByReference(tx, pending.reference);
    if (!report || !isPublic(pending.visibility)) return { kind: "not-public", reference: pending.reference };
    // Banned since it was sent: the usual answer, nothing published.
    if (await isBanned(tx, { accountId: null, addresses: [pending.email] })) {
      return { kind: "published", reference: report.reference, updateId: null };
    }
    const by = authorKind(report, { accountId: null, emails: [pending.email] });
    const recorded = await recordReportEvent(
      tx,
      { civic, now, by, accountId: null, email: pending.email, key: `report-update-request:${pending.id}` },
      report.id,
      { kind: "update", note: pending.note },
    );
    if (pending.photo_hash !== null && pending.photo_width !== null && pending.photo_height !== null) {
      const photo = { hash: pending.photo_hash, width: pending.photo_width, height: pending.photo_height };
      await addUpdatePhoto(tx, report.id, recorded.updateId, photo, now);
    }
    return { kind: "published", reference: report.reference, updateId: recorded.updateId };
  });
}
