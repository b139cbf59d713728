import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { eraseMailAbout, mailAbout } from "../core/mail/erase.js";
import { photoKey } from "../core/media/images.js";
import {
  type DataSubject,
  type ExportedFile,
  type PersonalDataSource,
  registerPersonalData,
  subjectAddresses,
} from "./personal-data.js";

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
 * The account itself, its sessions and passkeys, its other proved addresses (account_addresses: former ones, my-data
 * links opened while signed in) and pending sign-in messages. Erased last.
 */
export const accountData: PersonalDataSource = {
  key: "account",
  tables: ["accounts", "sessions", "passkeys", "email_challenges", "account_addresses", "webauthn_challenges"],
  async addresses({ db }, accountId) {
    const rows = await db
      .selectFrom("account_addresses")
      .select("email")
      .where("account_id", "=", accountId)
      .limit(1000)
      .execute();
    return rows.map((r) => r.email);
  },
  async collect({ db }, subject) {
    const account = subject.accountId
      ? await db.selectFrom("accounts").selectAll().where("id", "=", subject.accountId).executeTakeFirst()
      : undefined;
    if (!account) return { data: null };
    const sessions = await db
      .selectFrom("sessions")
      .select(["device", "created_at", "last_seen_at", "expires_at"])
      .where("account_id", "=", account.id)
      .orderBy("created_at")
      .execute();
    const passkeys = await db
      .selectFrom("passkeys")
      .select(["name", "created_at", "last_used_at"])
      .where("account_id", "=", account.id)
      .orderBy("created_at")
      .execute();
    const otherAddresses = await db
      .selectFrom("account_addresses")
      .select(["email", "reason", "created_at"])
      .where("account_id", "=", account.id)
      .orderBy("created_at")
      .execute();
    return {
      data: {
        email: account.email,
        name: account.name,
        role: account.role,
        hasPassword: account.password_hash !== null,
        createdAt: account.created_at,
        emailVerifiedAt: account.email_verified_at,
        suspendedAt: account.suspended_at,
        suspendedReason: account.suspended_reason,
        otherAddresses: otherAddresses.map((a) => ({ email: a.email, why: a.reason, since: a.created_at })),
        sessions,
        passkeys,
      },
    };
  },
  async erase({ db }, subject) {
    await db.deleteFrom("email_challenges").where("email", "in", subjectAddresses(subject)).execute();
    // Undo links sent to these addresses after an email change hold the address (an account's own go with it).
    await db.deleteFrom("email_change_undos").where("old_email", "in", subjectAddresses(subject)).execute();
    if (!subject.accountId) return;
    // Sessions, passkeys, other addresses and pending challenges go with the account (ON DELETE CASCADE).
    await db.deleteFrom("accounts").where("id", "=", subject.accountId).execute();
  },
};

/**
 * Mail to or about the person (core/mail/erase.ts): listed in the download while the outbox still holds it, and
 * deleted whole by the erasure, queued or sent, so no message keeps their address, name or words (a message to a
 * councillor, a copy of it, a council forward with their contact details).
 */
export const mailData: PersonalDataSource = {
  key: "mail",
  tables: ["outbox"],
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("outbox")
      .select(["kind", "to_address", "subject", "text_body", "created_at", "sent_at"])
      .where(mailAbout(subjectAddresses(subject)))
      .orderBy("id")
      .limit(10_000)
      .execute();
    return {
      data: rows.map((m) => ({
        kind: m.kind,
        to: m.to_address,
        subject: m.subject,
        text: m.text_body,
        queuedAt: m.created_at,
        sentAt: m.sent_at,
      })),
    };
  },
  async erase({ db }, subject) {
    await eraseMailAbout(db, subjectAddresses(subject));
  },
};

/** Reports: contact details, the link to the account, and the consent to share contact details with the council. */
export const reportData: PersonalDataSource = {
  key: "reports",
  tables: ["reports", "outbox"],
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
          .filter((u) => u.report_id === r.id)
          .map((u) => ({ status: u.status, previousStatus: u.previous_status, note: u.note, at: u.created_at })),
        photos: photos.filter((p) => p.report_id === r.id).map((p) => `photos/${r.reference}-${p.position + 1}.jpg`),
      })),
      files,
    };
  },
  async erase({ db }, subject, options) {
    const own = await ownReports(db, subject).select(["id", "reporter_email"]).limit(100_000).execute();
    const ids = own.map((r) => r.id);
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

registerPersonalData(accountData);
registerPersonalData(mailData);
registerPersonalData(reportData);
