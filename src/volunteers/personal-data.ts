import type { Kysely } from "kysely";
import { type DataSubject, subjectAddresses } from "../accounts/index.js";
import type { DB } from "../core/db/schema.js";
import { eraseMailAbout } from "../core/mail/erase.js";
import type { PersonalDataSource } from "../core/personal-data.js";

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

/** The person's sign-ups: under any of their addresses, or made while signed in (under whatever address). */
function ownSignUps(db: Kysely<DB>, subject: DataSubject) {
  return db.selectFrom("volunteers").where((eb) => {
    const byEmail = eb("email", "in", subjectAddresses(subject));
    return subject.accountId ? eb.or([eb("account_id", "=", subject.accountId), byEmail]) : byEmail;
  });
}

/**
 * Sign-ups under the person's addresses or made while signed in; each confirmed one is a consent they can withdraw.
 * Confirming a sign-up proves its address for that sign-up alone, never for an account (accounts/prefill.ts).
 */
export const volunteeringData: PersonalDataSource = {
  key: "volunteering",
  tables: ["volunteers", "outbox"],
  async collect({ db }, subject) {
    const rows = await ownSignUps(db, subject)
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
      .orderBy("id")
      .limit(10_000)
      .execute();
    return { data: rows };
  },
  async erase({ db }, subject) {
    const rows = await ownSignUps(db, subject).select(["id", "email"]).limit(100_000).execute();
    // The confirmation mail of a sign-up under an address not (yet) proved theirs goes with the sign-up.
    await eraseMailAbout(
      db,
      rows.map((r) => r.email),
      ["volunteer-confirm"],
    );
    const ids = rows.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .deleteFrom("volunteers")
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
    }
  },
  async consents({ db }, subject) {
    const rows = await ownSignUps(db, subject)
      .select(["id", "consent_text", "confirmed_at"])
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
      .where("id", "in", ownSignUps(db, subject).select("id"))
      .where("status", "=", "confirmed")
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
};
