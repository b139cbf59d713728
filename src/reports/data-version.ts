import { type Kysely, sql } from "kysely";
import type { DB } from "../core/db/schema.js";

/**
 * The version of everything a public read of reports shows: the public data's counters (moved by triggers on every
 * write to reports, their updates, photos and places: migration 0020) plus the catalogue's (0017). Both only grow,
 * so the sum moves with every committed change and never returns to an earlier value. One statement over 17 rows.
 */
export async function publicReadVersion(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ v: number | string | bigint | null }>`select
    (select coalesce(sum(n), 0) from public_data_version) + (select coalesce(max(version), 0) from catalogue_version) as v`.execute(
    db,
  );
  return Number(rows[0]?.v ?? 0);
}
