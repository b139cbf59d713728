import type { PersonalDataSource } from "../core/personal-data.js";
import { ownReports } from "./data-sources.js";

/**
 * "Is it fixed?" in the personal-data download and erasure: each round the reporter was asked about one of their
 * reports, and their answer. The answer's comment is a public update (in the report's history, which stays public,
 * unlinked, unless the person asks for their public content to go); erasure forgets the rounds and who answered.
 * Listed before `reportData`, whose erasure unlinks the reports this source finds them by.
 */
export const questionnaireData: PersonalDataSource = {
  key: "reportQuestionnaires",
  tables: ["report_questionnaires", "report_updates"],
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("report_questionnaires as q")
      .innerJoin("reports", "reports.id", "q.report_id")
      .leftJoin("report_updates as u", "u.id", "q.answer_update_id")
      .select(["reports.reference", "q.sent_at", "q.answer", "q.answered_at", "u.note"])
      .where("q.report_id", "in", ownReports(db, subject).select("id"))
      .orderBy("q.id")
      .limit(10_000)
      .execute();
    return {
      data: rows.map((r) => ({
        report: r.reference,
        askedAt: r.sent_at,
        answer: r.answer === null ? null : r.answer === "fixed" ? "Yes, fixed" : "No, still a problem",
        answeredAt: r.answered_at,
        publishedAs: r.note ?? null,
      })),
    };
  },
  async erase({ db }, subject) {
    const own = ownReports(db, subject).select("id");
    await db
      .updateTable("report_updates")
      .set({ author_email: null, author_account_id: null })
      .where("event", "=", "questionnaire")
      .where("report_id", "in", own)
      .execute();
    await db.deleteFrom("report_questionnaires").where("report_id", "in", own).execute();
  },
};
