import { subjectAddresses } from "../accounts/index.js";
import type { PersonalDataSource } from "../core/personal-data.js";
import { signUpRows } from "./subscriber-rows.js";

const signUps = signUpRows("report_followers");

/** The reports a person follows by email: in their data download, erased with their data, each a consent. */
export const reportFollowingData: PersonalDataSource = {
  key: "reportFollowing",
  tables: ["report_followers"],
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("report_followers")
      .innerJoin("reports", "reports.id", "report_followers.report_id")
      .select([
        "reports.reference",
        "report_followers.email",
        "report_followers.created_at",
        "report_followers.confirmed_at",
      ])
      .where("report_followers.email", "in", subjectAddresses(subject))
      .orderBy("report_followers.id")
      .execute();
    return {
      data: rows.map((r) => ({
        report: r.reference,
        email: r.email,
        askedAt: r.created_at,
        confirmedAt: r.confirmed_at,
      })),
    };
  },
  erase: ({ db }, subject) => signUps.erase(db, subject),
  async consents({ db }, subject) {
    const rows = await db
      .selectFrom("report_followers")
      .innerJoin("reports", "reports.id", "report_followers.report_id")
      .select(["report_followers.id", "reports.reference", "report_followers.confirmed_at"])
      .where("report_followers.email", "in", subjectAddresses(subject))
      .where("report_followers.confirmed_at", "is not", null)
      .orderBy("report_followers.id")
      .execute();
    return rows.map((r) => ({
      id: String(r.id),
      label: `Email me the public updates on report ${r.reference}`,
      givenAt: r.confirmed_at!,
    }));
  },
  withdrawRow: ({ db }, subject, id) => signUps.withdraw(db, subject, id),
};
