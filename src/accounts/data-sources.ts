import { type Kysely, sql } from "kysely";
import type { DB } from "../core/db/schema.js";
import { photoKey } from "../core/media/images.js";
import { type DataSubject, type ExportedFile, type PersonalDataSource, registerPersonalData } from "./personal-data.js";

/** Reports that belong to the person: made while signed in, or made with their verified address. */
export function ownReports(db: Kysely<DB>, subject: DataSubject) {
  return db.selectFrom("reports").where((eb) => {
    const byEmail = eb("reporter_email", "=", subject.email);
    return subject.accountId ? eb.or([eb("account_id", "=", subject.accountId), byEmail]) : byEmail;
  });
}

/**
 * Removes an address from every message in the outbox: mail to it goes, mentions of it are blanked, and so are the
 * other details given with it (`alsoBlank`: names, phone numbers) in the messages that mention it.
 */
export async function scrubOutbox(db: Kysely<DB>, email: string, alsoBlank: string[] = []): Promise<void> {
  await db
    .deleteFrom("outbox")
    .where(sql<string>`lower(to_address)`, "=", email)
    .execute();
  const pattern = `%${email}%`;
  const mentions = await db
    .selectFrom("outbox")
    .select(["id", "subject", "text_body", "html_body"])
    .where((eb) =>
      eb.or([
        eb(sql<string>`lower(subject)`, "like", pattern),
        eb(sql<string>`lower(text_body)`, "like", pattern),
        eb(sql<string>`lower(coalesce(html_body, ''))`, "like", pattern),
      ]),
    )
    .limit(10_000)
    .execute();
  const escape = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const values = [email, ...alsoBlank.filter((v) => v.trim().length >= 2)].map(escape);
  const mentioned = new RegExp(values.join("|"), "gi");
  const blank = (text: string) => text.replace(mentioned, "[erased]");
  for (const m of mentions) {
    await db
      .updateTable("outbox")
      .set({
        subject: blank(m.subject),
        text_body: blank(m.text_body),
        html_body: m.html_body === null ? null : blank(m.html_body),
      })
      .where("id", "=", m.id)
      .execute();
  }
}

/** The account itself, its sessions and passkeys, and pending sign-in messages. Erased last. */
export const accountData: PersonalDataSource = {
  key: "account",
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
        sessions,
        passkeys,
      },
    };
  },
  async erase({ db }, subject) {
    await scrubOutbox(db, subject.email);
    await db.deleteFrom("email_challenges").where("email", "=", subject.email).execute();
    // Undo links sent to this address after an email change hold the address (an account's own go with it).
    await db.deleteFrom("email_change_undos").where("old_email", "=", subject.email).execute();
    if (!subject.accountId) return;
    const account = await db
      .selectFrom("accounts")
      .select("email")
      .where("id", "=", subject.accountId)
      .executeTakeFirst();
    if (account && account.email !== subject.email) {
      await scrubOutbox(db, account.email);
      await db.deleteFrom("email_challenges").where("email", "=", account.email).execute();
    }
    // Sessions, passkeys and pending challenges go with the account (ON DELETE CASCADE).
    await db.deleteFrom("accounts").where("id", "=", subject.accountId).execute();
  },
};

/** Reports: contact details, the link to the account, and the consent to share contact details with the council. */
export const reportData: PersonalDataSource = {
  key: "reports",
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
    const own = await ownReports(db, subject)
      .select(["id", "reporter_email", "reporter_name", "reporter_phone"])
      .limit(100_000)
      .execute();
    const ids = own.map((r) => r.id);
    // Council forwarding mail carries the contact details given with a report; blank them where the address is.
    const details = own.flatMap((r) => [r.reporter_name, r.reporter_phone]).filter((v): v is string => !!v);
    const addresses = new Set([subject.email, ...own.map((r) => r.reporter_email).filter((v): v is string => !!v)]);
    for (const address of addresses) await scrubOutbox(db, address, [...new Set(details)]);
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
registerPersonalData(reportData);
