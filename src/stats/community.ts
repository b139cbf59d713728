import { sql } from "kysely";
import type { Database } from "../core/db/database.js";

/**
 * Community figures for the staff statistics, from tables other features own. Each is counted only when its table
 * exists (a guard, so this page works before and after those features are installed); when the table has a
 * `status` column only the listed statuses count (e.g. confirmed sign-ups, not unconfirmed or withdrawn ones).
 */
const SOURCES = [
  { label: "Ideas", table: "ideas", statuses: ["open", "under-consideration", "adopted", "not-taken-forward", "done"] },
  { label: "Volunteer sign-ups (confirmed)", table: "volunteers", statuses: ["confirmed"] },
  { label: "Newsletter subscribers (confirmed)", table: "newsletter_subscribers", statuses: ["confirmed"] },
] as const;

export interface CommunityCount {
  label: string;
  count: number;
}

/** The column names of a table, or none when it does not exist. */
export async function tableColumns(database: Database, table: string): Promise<string[]> {
  const rows =
    database.dialect === "sqlite"
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(database.db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(database.db);
  return rows.rows.map((r) => r.name);
}

/** Counts of ideas, volunteer sign-ups and newsletter subscribers, for the tables that exist. */
export async function communityCounts(database: Database): Promise<CommunityCount[]> {
  const counts: CommunityCount[] = [];
  for (const source of SOURCES) {
    const columns = await tableColumns(database, source.table);
    if (columns.length === 0) continue;
    const filter = columns.includes("status")
      ? sql` where status in (${sql.join(source.statuses.map((s) => sql.lit(s)))})`
      : sql``;
    const row = await sql<{ n: number }>`select count(*) as n from ${sql.table(source.table)}${filter}`.execute(
      database.db,
    );
    counts.push({ label: source.label, count: Number(row.rows[0]?.n ?? 0) });
  }
  return counts;
}
