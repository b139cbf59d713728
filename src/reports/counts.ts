import type { Kysely } from "kysely";
import type { DB, ReportStatus } from "../core/db/schema.js";
import { publicIn } from "../core/visibility.js";
import { UNRESOLVED_STATUSES } from "./model.js";

/**
 * How many public reports match a filter, from `report_counts` (kept by triggers on `reports`, migration
 * 0019_scale_counts): a sum over a few dozen rows instead of counting up to a million reports. Hidden and removed
 * reports are never counted, as in every public output (core/visibility.ts).
 */
export async function publicReportCount(
  db: Kysely<DB>,
  filter: { category?: string | undefined; status?: ReportStatus | undefined; unresolved?: boolean | undefined },
): Promise<number> {
  let q = db
    .selectFrom("report_counts")
    .select((eb) => eb.fn.sum<number | string | null>("n").as("n"))
    .where(publicIn("report_counts"));
  if (filter.category) q = q.where("category_code", "=", filter.category);
  if (filter.status) q = q.where("status", "=", filter.status);
  if (filter.unresolved) q = q.where("status", "in", UNRESOLVED_STATUSES);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}
