import { eraseLinks } from "../core/links.js";
import { eraseMailAbout, mailAbout } from "../core/mail/erase.js";
import { type PersonalDataSource, subjectAddresses } from "./personal-data.js";

/**
 * The account itself, its sessions and passkeys, its other proved addresses (account_addresses: former ones, ones
 * added and confirmed from their mailbox), pending sign-in messages and the emailed links sent to its addresses.
 * Erased last.
 */
export const accountData: PersonalDataSource = {
  key: "account",
  tables: [
    "accounts",
    "sessions",
    "passkeys",
    "email_challenges",
    "email_links",
    "account_addresses",
    "webauthn_challenges",
  ],
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
    // Emailed links of every kind sent to these addresses or for this account hold the address (core/links.ts).
    await eraseLinks(db, { emails: subjectAddresses(subject), accountId: subject.accountId });
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
