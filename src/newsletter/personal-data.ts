import { subjectAddresses } from "../accounts/index.js";
import type { PersonalDataSource } from "../core/personal-data.js";

/**
 * Newsletter subscriptions under the person's addresses: exported with their consent wording and time, erased
 * whole. The part is one subscription (or null) when there is one, a list when they have several addresses.
 */
export const newsletterData: PersonalDataSource = {
  key: "newsletter",
  tables: ["newsletter_subscribers", "newsletter_sends"],
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("newsletter_subscribers")
      .select(["email", "status", "consent_text", "created_at", "confirmed_at", "unsubscribed_at"])
      .where("email", "in", subjectAddresses(subject))
      .orderBy("id")
      .execute();
    const parts = rows.map((row) => ({
      email: row.email,
      status: row.status,
      consent: row.consent_text,
      askedAt: row.created_at,
      confirmedAt: row.confirmed_at,
      unsubscribedAt: row.unsubscribed_at,
    }));
    return { data: parts.length > 1 ? parts : (parts[0] ?? null) };
  },
  async erase({ db }, subject) {
    await db.deleteFrom("newsletter_subscribers").where("email", "in", subjectAddresses(subject)).execute();
  },
  async consents({ db }, subject) {
    const rows = await db
      .selectFrom("newsletter_subscribers")
      .select(["id", "consent_text", "confirmed_at"])
      .where("email", "in", subjectAddresses(subject))
      .where("status", "=", "confirmed")
      .orderBy("id")
      .execute();
    return rows.flatMap((row) =>
      row.confirmed_at ? [{ id: String(row.id), label: row.consent_text, givenAt: row.confirmed_at }] : [],
    );
  },
  async withdrawRow({ db, now }, subject, id) {
    const result = await db
      .updateTable("newsletter_subscribers")
      .set({ status: "unsubscribed", unsubscribed_at: now.toISOString() })
      .where("id", "=", id)
      .where("email", "in", subjectAddresses(subject))
      .where("status", "=", "confirmed")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};
