import { registerPersonalData } from "../accounts/personal-data.js";

/** A withdrawn sign-up keeps only its address and dates; the person's details are cleared. */
export function withdrawnValues(now: Date) {
  return {
    status: "withdrawn" as const,
    withdrawn_at: now.toISOString(),
    name: "",
    phone: null,
    interests: "",
    availability: "",
  };
}

/** Sign-ups under the person's address or account; each confirmed one is a consent they can withdraw. */
registerPersonalData({
  key: "volunteering",
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("volunteers")
      .select([
        "project_id",
        "role",
        "name",
        "email",
        "phone",
        "interests",
        "availability",
        "consent_text",
        "status",
        "created_at",
        "confirmed_at",
        "withdrawn_at",
      ])
      .where("email", "=", subject.email)
      .execute();
    return { data: rows };
  },
  async erase({ db }, subject) {
    await db.deleteFrom("volunteers").where("email", "=", subject.email).execute();
  },
  async consents({ db }, subject) {
    const rows = await db
      .selectFrom("volunteers")
      .select(["id", "consent_text", "confirmed_at"])
      .where("email", "=", subject.email)
      .where("status", "=", "confirmed")
      .execute();
    return rows.map((r) => ({
      id: String(r.id),
      label: `Volunteering: ${r.consent_text}`,
      givenAt: r.confirmed_at ?? "",
    }));
  },
  async withdrawRow({ db, now }, subject, id) {
    const r = await db
      .updateTable("volunteers")
      .set(withdrawnValues(now))
      .where("id", "=", id)
      .where("email", "=", subject.email)
      .where("status", "=", "confirmed")
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
});
