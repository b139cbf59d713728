import { subjectAddresses } from "../accounts/index.js";
import type { PersonalDataSource } from "../core/personal-data.js";
import { signUpRows } from "./subscriber-rows.js";
import { alertNames, describeAlert } from "./alerts.js";

const signUps = signUpRows("report_alerts");

/** A person's alerts for new reports: in their data download, erased with their data, each a consent. */
export const reportAlertData: PersonalDataSource = {
  key: "reportAlerts",
  tables: ["report_alerts", "report_alert_sends", "report_alert_digests"],
  async collect({ db }, subject) {
    const rows = await db
      .selectFrom("report_alerts")
      .selectAll()
      .where("email", "in", subjectAddresses(subject))
      .orderBy("id")
      .execute();
    const names = await alertNames(db);
    return {
      data: rows.map((r) => ({
        email: r.email,
        area: describeAlert(r, names),
        frequency: r.frequency,
        askedAt: r.created_at,
        confirmedAt: r.confirmed_at,
      })),
    };
  },
  erase: ({ db }, subject) => signUps.erase(db, subject),
  async consents({ db }, subject) {
    const rows = await db
      .selectFrom("report_alerts")
      .selectAll()
      .where("email", "in", subjectAddresses(subject))
      .where("confirmed_at", "is not", null)
      .orderBy("id")
      .execute();
    const names = await alertNames(db);
    return rows.map((r) => ({
      id: String(r.id),
      label: `Email me about new reports (${r.frequency === "daily" ? "daily" : "at once"}): ${describeAlert(r, names)}`,
      givenAt: r.confirmed_at!,
    }));
  },
  withdrawRow: ({ db }, subject, id) => signUps.withdraw(db, subject, id),
};
