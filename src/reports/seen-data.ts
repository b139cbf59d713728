import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import { type DataSubject, type PersonalDataSource, subjectAddresses } from "../core/personal-data.js";

/** The person's "I have seen this too" marks: made while signed in, or confirmed with one of their addresses. */
function theirs(db: Kysely<DB>, subject: DataSubject) {
  return db.selectFrom("report_seen").where((eb) => {
    const byEmail = eb("report_seen.email", "in", subjectAddresses(subject));
    return subject.accountId ? eb.or([eb("report_seen.account_id", "=", subject.accountId), byEmail]) : byEmail;
  });
}

/**
 * "I have seen this too" (reports/seen.ts): the marks a person made signed in or with a confirmed address are in
 * their data download, and erased with their data (the count goes down by theirs); the internal events recorded
 * with them (report_updates, event "seen") lose the account and the address. Anonymous marks hold only a keyed hash
 * of a client address and a day, which names nobody.
 */
export const reportSeenData: PersonalDataSource = {
  key: "reportSeen",
  tables: ["report_seen", "report_updates"],
  async collect({ db }, subject) {
    const rows = await theirs(db, subject)
      .innerJoin("reports", "reports.id", "report_seen.report_id")
      .select(["reports.reference", "report_seen.email", "report_seen.account_id", "report_seen.created_at"])
      .orderBy("report_seen.id")
      .limit(10_000)
      .execute();
    return {
      data: rows.map((r) => ({
        report: r.reference,
        signedIn: r.account_id !== null,
        email: r.email,
        at: r.created_at,
      })),
    };
  },
  async erase({ db }, subject) {
    await db
      .deleteFrom("report_seen")
      .where((eb) => {
        const byEmail = eb("email", "in", subjectAddresses(subject));
        return subject.accountId ? eb.or([eb("account_id", "=", subject.accountId), byEmail]) : byEmail;
      })
      .execute();
    await db
      .updateTable("report_updates")
      .set({ author_account_id: null, author_email: null })
      .where("event", "=", "seen")
      .where((eb) => {
        const byEmail = eb("author_email", "in", subjectAddresses(subject));
        return subject.accountId ? eb.or([eb("author_account_id", "=", subject.accountId), byEmail]) : byEmail;
      })
      .execute();
  },
};
