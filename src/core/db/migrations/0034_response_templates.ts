import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Response templates (issue 36), written only by the reports feature (src/reports/staff/templates.ts): the text of a
 * public status update that administrators keep for a status, in one category or in every category. The staff
 * report view's status form offers the ones matching the report's category and the chosen status; staff may edit
 * the text before publishing it. Every change is in the audit log.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("response_templates")
    .addColumn("id", "integer", idColumn(db))
    /** A short name staff choose it by. */
    .addColumn("title", "text", (c) => c.notNull())
    /** null: every category. */
    .addColumn("category_code", "text", (c) => c.references("categories.code").onDelete("cascade"))
    /** The status it is written for (a report status). */
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("response_templates_status")
    .on("response_templates")
    .columns(["status", "category_code"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("response_templates").execute();
}
