import { type Kysely, type Migration, type MigrationResultSet, Migrator } from "kysely";
import * as m0001 from "./0001_core.js";
import * as m0002 from "./0002_businesses.js";
import * as m0003 from "./0003_reports.js";
import * as m0005 from "./0005_reports_extra.js";
import * as m0006 from "./0006_open311.js";
import * as m0007 from "./0007_writes.js";
import * as m0008 from "./0008_jobs.js";
import * as m0009 from "./0009_idempotency.js";
import * as m0010 from "./0010_accounts.js";
import * as m0011 from "./0011_staff.js";
import * as m0012 from "./0012_moderation.js";
import * as m0013 from "./0013_community.js";
import * as m0014 from "./0014_analytics.js";
import * as m0015 from "./0015_scale.js";
import * as m0016 from "./0016_triage.js";
import * as m0017 from "./0017_catalogue.js";
import * as m0019 from "./0019_scale_counts.js";
import * as m0020 from "./0020_public_data_version.js";
import * as m0020b from "./0020b_unlogged_counters.js";
import * as m0021 from "./0021_trust_signin.js";
import * as m0022 from "./0022_trust_policy.js";
import * as m0025 from "./0025_trust_personal_data.js";
import * as m0026a from "./0026_email_links.js";
import * as m0026b from "./0026_trust_api_clients.js";
import * as m0027 from "./0027_catalogue_changed_at.js";
import * as m0028 from "./0028_search.js";
import * as m0029 from "./0029_map_tiles.js";
import * as m0030 from "./0030_report_alerts.js";
import * as m0031 from "./0031_report_map_cells.js";
import * as m0032 from "./0032_map_cell_slots.js";
import * as m0033 from "./0033_report_events.js";
import * as m0034 from "./0034_response_templates.js";
import * as m0035 from "./0035_report_map_cells_public.js";
import * as m0036 from "./0036_resident_updates.js";
import * as m0037 from "./0037_report_seen.js";
import * as m0038 from "./0038_report_questionnaires.js";
import * as m0040 from "./0040_forwarding.js";
import * as m0041 from "./0041_update_photos.js";
import * as m0042 from "./0042_council_polling.js";
import * as m0043 from "./0043_map_cell_changes.js";

/**
 * The one migration set for SQLite and PostgreSQL, in order. Each feature adds its own file here; names sort in
 * the order they run, and a migration that has shipped is never edited.
 */
export const migrations: Record<string, Migration> = {
  "0001_core": m0001,
  "0002_businesses": m0002,
  "0003_reports": m0003,
  "0005_reports_extra": m0005,
  "0006_open311": m0006,
  "0007_writes": m0007,
  "0008_jobs": m0008,
  "0009_idempotency": m0009,
  "0010_accounts": m0010,
  "0013_community": m0013,
  "0011_staff": m0011,
  "0014_analytics": m0014,
  "0015_scale": m0015,
  "0012_moderation": m0012,
  "0016_triage": m0016,
  "0017_catalogue": m0017,
  "0019_scale_counts": m0019,
  "0020_public_data_version": m0020,
  "0020b_unlogged_counters": m0020b,
  "0021_trust_signin": m0021,
  "0022_trust_policy": m0022,
  "0025_trust_personal_data": m0025,
  "0026_email_links": m0026a,
  "0026_trust_api_clients": m0026b,
  "0027_catalogue_changed_at": m0027,
  "0028_search": m0028,
  "0029_map_tiles": m0029,
  "0030_report_alerts": m0030,
  "0031_report_map_cells": m0031,
  "0032_map_cell_slots": m0032,
  "0033_report_events": m0033,
  "0034_response_templates": m0034,
  "0035_report_map_cells_public": m0035,
  "0036_resident_updates": m0036,
  "0037_report_seen": m0037,
  "0038_report_questionnaires": m0038,
  "0040_forwarding": m0040,
  "0041_update_photos": m0041,
  "0042_council_polling": m0042,
  "0043_map_cell_changes": m0043,
};

export class MigrationError extends Error {
  constructor(
    readonly migration: string | undefined,
    cause: unknown,
  ) {
    super(`Migration ${migration ?? "(unknown)"} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "MigrationError";
  }
}

/** Brings the schema up to date. Returns the names of the migrations that ran. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Features add their migrations side by side; one that lands after a higher-numbered one still runs.
    allowUnorderedMigrations: true,
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error");
    throw new MigrationError(failed?.migrationName, result.error);
  }
  return (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
