import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Forwarding with destinations (issue 37). A department's delivery method (written by the catalogue feature): email
 * (as before) or Open311, with the endpoint, the API key sealed with the forwarding secret (never stored in the
 * clear), an optional jurisdiction_id and two JSON mappings: our category codes to the council's service codes, and
 * the council's attribute codes to our questions' codes. And one row per forwarding of a report (written by the
 * reports feature only): where it went, how, its state as a job (attempts, next attempt, the lease of the process
 * sending it), the Idempotency-Key every attempt carries, and the council's answer (service_request_id or token,
 * or the last error). Polling the council's answers back reads these rows later.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .alterTable("departments")
    .addColumn("delivery", "text", (c) => c.notNull().defaultTo("email"))
    .execute();
  await db.schema.alterTable("departments").addColumn("open311_endpoint", "text").execute();
  await db.schema.alterTable("departments").addColumn("open311_key_sealed", "text").execute();
  await db.schema.alterTable("departments").addColumn("open311_jurisdiction", "text").execute();
  await db.schema
    .alterTable("departments")
    .addColumn("open311_services", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema
    .alterTable("departments")
    .addColumn("open311_attributes", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();

  await db.schema
    .createTable("report_forwardings")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("report_id", "integer", (c) => c.notNull().references("reports.id").onDelete("cascade"))
    /** A copy, not a reference: the row says where the report went even after the department changes. */
    .addColumn("department_id", "integer")
    .addColumn("department_name", "text", (c) => c.notNull())
    /** email | open311 */
    .addColumn("method", "text", (c) => c.notNull())
    /** The address or the endpoint's base URL. */
    .addColumn("destination", "text", (c) => c.notNull())
    .addColumn("service_code", "text")
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    /** pending | sent | failed */
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", ts, (c) => c.notNull())
    .addColumn("locked_until", ts)
    .addColumn("last_error", "text")
    .addColumn("service_request_id", "text")
    .addColumn("token", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("sent_at", ts)
    .addColumn("failed_at", ts)
    .execute();
  await db.schema
    .createIndex("report_forwardings_due")
    .on("report_forwardings")
    .columns(["state", "next_attempt_at"])
    .execute();
  await db.schema.createIndex("report_forwardings_report").on("report_forwardings").column("report_id").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable("report_forwardings").execute();
  for (const column of [
    "delivery",
    "open311_endpoint",
    "open311_key_sealed",
    "open311_jurisdiction",
    "open311_services",
    "open311_attributes",
  ]) {
    await db.schema.alterTable("departments").dropColumn(column).execute();
  }
}
