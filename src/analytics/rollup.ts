import type { Kysely } from "kysely";
import type { DB } from "../core/db/schema.js";
import type { Job } from "../core/jobs/runner.js";
import { deleteOldSalts, statsDay } from "./visitors.js";

/** A finished day is rolled up only this long after midnight, when every process has written its last hashes. */
const GRACE_MS = 2 * 60_000;
const BATCH = 5_000;
/** At most this many batches per run; the next run carries on. */
const MAX_BATCHES = 200;

/**
 * Turns the visitor hashes of finished days into one unique-visitor count per day and deletes them: each batch
 * deletes hashes and adds exactly as many to the day's count, in one transaction, so a count is never lost or
 * doubled whatever runs at the same time.
 */
export async function rollUpVisitors(db: Kysely<DB>, now: Date, signal?: AbortSignal): Promise<number> {
  const before = statsDay(new Date(now.getTime() - GRACE_MS));
  let total = 0;
  for (let i = 0; i < MAX_BATCHES && !signal?.aborted; i++) {
    const deleted = await db.transaction().execute(async (trx) => {
      const rows = await trx
        .deleteFrom("analytics_visitors")
        .where((eb) =>
          eb(
            eb.refTuple("day", "visitor"),
            "in",
            eb
              .selectFrom("analytics_visitors")
              .select(["day", "visitor"])
              .where("day", "<", before)
              .limit(BATCH)
              .$asTuple("day", "visitor"),
          ),
        )
        .returning("day")
        .execute();
      const perDay = new Map<string, number>();
      for (const r of rows) perDay.set(r.day, (perDay.get(r.day) ?? 0) + 1);
      for (const [day, count] of [...perDay].sort()) {
        await trx
          .insertInto("analytics_counts")
          .values({ day, kind: "visitors", key: "", count })
          .onConflict((oc) =>
            oc
              .columns(["day", "kind", "key"])
              .doUpdateSet((eb) => ({ count: eb("analytics_counts.count", "+", eb.ref("excluded.count")) })),
          )
          .execute();
      }
      return rows.length;
    });
    total += deleted;
    if (deleted < BATCH) break;
  }
  return total;
}

/** The statistics job: rolls up finished days' visitors and deletes salts older than 48 hours. */
export function analyticsRollupJob(db: Kysely<DB>): Job {
  return {
    name: "analytics-rollup",
    intervalMs: 10 * 60_000,
    async run({ now, signal }) {
      const visitors = await rollUpVisitors(db, now, signal);
      const salts = await deleteOldSalts(db, statsDay(now));
      return { visitors, salts };
    },
  };
}
