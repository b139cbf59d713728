import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * PostgreSQL: rate-limit counters become an UNLOGGED table. Every Open311 read and every form post counts a hit in
 * `rate_limit_counters`; as a logged table each hit was a commit that waited for a WAL flush (an fsync per read,
 * ~40 % of a cached Open311 answer's time on the benchmark machine). Unlogged tables write no WAL, so their commits
 * do not wait. What is given up: after a PostgreSQL crash the table starts empty, and a standby does not have it,
 * so counters restart after a crash or a failover (a client briefly gets a fresh allowance). Nothing else lives in
 * the table. SQLite has no such mode and keeps it as it is.
 */
export async function up(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) await sql`alter table rate_limit_counters set unlogged`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) await sql`alter table rate_limit_counters set logged`.execute(db);
}
