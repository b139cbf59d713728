import { registerPersonalData } from "../accounts/personal-data.js";

/** A newsletter subscription under the person's address: exported with its consent wording and time, erased whole. */
registerPersonalData({
  key: "newsletter",
  async collect({ db }, subject) {
    const row = await db
      .selectFrom("newsletter_subscribers")
      .select(["email", "status", "consent_text", "created_at", "confirmed_at", "unsubscribed_at"])
      .where("email", "=", subject.email)
      .executeTakeFirst();
    return {
      data: row
        ? {
            email: row.email,
            status: row.status,
            consent: row.consent_text,
            askedAt: row.created_at,
            confirmedAt: row.confirmed_at,
            unsubscribedAt: row.unsubscribed_at,
          }
        : null,
    };
  },
  async erase({ db }, subject) {
    await db.deleteFrom("newsletter_subscribers").where("email", "=", subject.email).execute();
  },
  async consents({ db }, subject) {
    const row = await db
      .selectFrom("newsletter_subscribers")
      .select(["id", "consent_text", "confirmed_at"])
      .where("email", "=", subject.email)
      .where("status", "=", "confirmed")
      .executeTakeFirst();
    return row?.confirmed_at ? [{ id: String(row.id), label: row.consent_text, givenAt: row.confirmed_at }] : [];
  },
  async withdrawRow({ db, now }, subject, id) {
    const result = await db
      .updateTable("newsletter_subscribers")
      .set({ status: "unsubscribed", unsubscribed_at: now.toISOString() })
      .where("id", "=", id)
      .where("email", "=", subject.email)
      .where("status", "=", "confirmed")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
});
