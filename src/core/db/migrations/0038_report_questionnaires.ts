import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * "Is it fixed?" (issue 36), written only by the reports feature (src/reports/questionnaire.ts): one row per report
 * and round. A round is named by the report's latest public event when the questionnaire became due (`basis_id`, a
 * `report_updates` id): the unique pair makes a second mail for the same round impossible, even from another
 * process or a retried run. The answer itself is a public update written through the one path (events.ts, kind
 * "questionnaire"); this row keeps which answer it was and when, for the reporter's data download.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("report_questionnaires")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    .addColumn("basis_id", "integer", (c) => c.notNull())
    .addColumn("sent_at", ts, (c) => c.notNull())
    /** "fixed" | "not-fixed", null until answered. */
    .addColumn("answer", "text")
    .addColumn("answered_at", ts)
    /** The answer's report_updates row. */
    .addColumn("answer_update_id", "integer")
    .addUniqueConstraint("report_questionnaires_round", ["report_id", "basis_id"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("report_questionnaires").execute();
}
