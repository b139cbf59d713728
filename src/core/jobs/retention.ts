import type { Expression, ExpressionBuilder, Kysely, SqlBool } from "kysely";
import type { DB, ReportStatus } from "../db/schema.js";
import { purgeLinks, purgeOrphanLinks } from "../links.js";
import type { Job } from "./runner.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long personal data is kept, as the privacy notice (src/site/content/privacy.tsx) and
 * docs/privacy-and-security.md "Retention" promise. Change the three together.
 */
export const RETENTION = {
  /** An email is deleted from the outbox this long after it was delivered. */
  sentMailDays: 7,
  /** An email that could not be delivered is deleted this long after it was written. */
  unsentMailDays: 30,
  /** A reporter's email, name and phone are erased this long after the report was finished. */
  contactAfterFinishedDays: 180,
  /**
   * An idea, volunteer sign-up, newsletter subscription or report follow whose confirmation link was never used is
   * deleted this long after it was asked for (the link itself expires long before).
   */
  unconfirmedDays: 30,
  /**
   * A newsletter subscription that was stopped, or a volunteer sign-up that was withdrawn, is deleted (address and
   * all) this long after. Nothing needs to remember the address: only confirmed subscribers are ever sent issues, and
   * a new sign-up asks for a new confirmation.
   */
  stoppedDays: 30,
  /**
   * Not enforced by this job but by the operator's backup rotation (deploy/README.md): database backups are kept
   * this long, so data erased from the live database is gone from every copy this long after the erasure.
   */
  backupDays: 30,
} as const;

/**
 * Statuses in which a report is finished (Open311 "closed"): nobody sends updates about it any more. Written out
 * here because the floor imports no feature; retention.test.ts checks it against the reports model's open311Status.
 */
export const FINISHED_STATUSES: readonly ReportStatus[] = ["fixed", "closed", "duplicate", "not_responsible"];

const BATCH = 500;
/** At most this many batches per run; the next run carries on. */
const MAX_BATCHES = 200;

const before = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();

/** Runs `step` (which handles at most BATCH rows and says how many) until it handles fewer, or the run is stopped. */
async function inBatches(step: () => Promise<number>, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES && !signal?.aborted; i++) {
    const n = await step();
    total += n;
    if (n < BATCH) break;
  }
  return total;
}

/**
 * Deletes outbox rows, and with them their copies of addresses and message texts: delivered messages
 * `sentMailDays` after delivery, undelivered ones (given up or still failing) `unsentMailDays` after they were
 * written.
 */
export function deleteOldMail(db: Kysely<DB>, now: Date, signal?: AbortSignal): Promise<number> {
  const sentBefore = before(now, RETENTION.sentMailDays);
  const writtenBefore = before(now, RETENTION.unsentMailDays);
  return inBatches(async () => {
    const result = await db
      .deleteFrom("outbox")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("outbox")
          .select("id")
          .where((w) =>
            w.or([
              w.and([w("sent_at", "is not", null), w("sent_at", "<", sentBefore)]),
              w.and([w("sent_at", "is", null), w("created_at", "<", writtenBefore)]),
            ]),
          )
          .limit(BATCH),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }, signal);
}

/**
 * Erases reporters' contact details (email, name, phone, and the consent to share them) from reports finished more
 * than `contactAfterFinishedDays` ago. The report itself stays public; `updated_at` is left alone, since nothing
 * public changed. A report that is reopened before then keeps them.
 */
export function eraseOldContactDetails(db: Kysely<DB>, now: Date, signal?: AbortSignal): Promise<number> {
  const finishedBefore = before(now, RETENTION.contactAfterFinishedDays);
  return inBatches(async () => {
    const result = await db
      .updateTable("reports")
      .set({ reporter_email: null, reporter_name: null, reporter_phone: null, share_contact: 0 })
      .where("id", "in", (eb) =>
        eb
          .selectFrom("reports")
          .select("id")
          .where("status", "in", FINISHED_STATUSES)
          .where("updated_at", "<", finishedBefore)
          .where((w) =>
            w.or([
              w("reporter_email", "is not", null),
              w("reporter_name", "is not", null),
              w("reporter_phone", "is not", null),
            ]),
          )
          .limit(BATCH),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }, signal);
}

/** A delete of at most BATCH rows of `table` (by its integer `id`) chosen by `where`; says how many went. */
type Purgeable = "ideas" | "volunteers" | "newsletter_subscribers" | "report_followers" | "report_update_requests";

async function deleteBatch<T extends Purgeable>(
  db: Kysely<DB>,
  table: T,
  where: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>,
): Promise<number> {
  // Typed for one table, run for the one asked for: every purgeable table has an integer id.
  const t = table as "ideas";
  const w = where as unknown as (eb: ExpressionBuilder<DB, "ideas">) => Expression<SqlBool>;
  const result = await db
    .deleteFrom(t)
    .where("id", "in", (eb) => eb.selectFrom(t).select("id").where(w).limit(BATCH))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes what was asked for but never confirmed from its mailbox (`unconfirmedDays` after it was asked for): ideas
 * (never public), volunteer sign-ups, newsletter subscriptions and report follows; and stopped ones (`stoppedDays`
 * after): unsubscribed newsletter addresses and withdrawn volunteer sign-ups; and emailed links of every kind
 * (core/links.ts) a day after they expired, with the address they hold. Their addresses go with them.
 */
export async function purgeUnconfirmed(db: Kysely<DB>, now: Date, signal?: AbortSignal): Promise<number> {
  const asked = before(now, RETENTION.unconfirmedDays);
  const stopped = before(now, RETENTION.stoppedDays);
  const steps: (() => Promise<number>)[] = [
    () => deleteBatch(db, "ideas", (eb) => eb.and([eb("status", "=", "unconfirmed"), eb("created_at", "<", asked)])),
    () =>
      deleteBatch(db, "volunteers", (eb) => eb.and([eb("status", "=", "unconfirmed"), eb("created_at", "<", asked)])),
    () =>
      deleteBatch(db, "volunteers", (eb) => eb.and([eb("status", "=", "withdrawn"), eb("withdrawn_at", "<", stopped)])),
    () =>
      deleteBatch(db, "newsletter_subscribers", (eb) =>
        eb.and([eb("status", "=", "unconfirmed"), eb("created_at", "<", asked)]),
      ),
    () =>
      deleteBatch(db, "newsletter_subscribers", (eb) =>
        eb.and([eb("status", "=", "unsubscribed"), eb("unsubscribed_at", "<", stopped)]),
      ),
    () =>
      deleteBatch(db, "report_followers", (eb) =>
        eb.and([eb("confirmed_at", "is", null), eb("created_at", "<", asked)]),
      ),
    // A resident's update sent with an address waits here until its link confirms it (reports/resident-updates.ts).
    () => deleteBatch(db, "report_update_requests", (eb) => eb("created_at", "<", asked)),
    () => purgeLinks(db, now, BATCH),
    // The features' emailed links go with the rows they act on (their purposes: ideas/service.ts,
    // volunteers/routes.tsx, newsletter/service.ts, reports/followers.ts).
    () => purgeOrphanLinks(db, "idea-confirm", "ideas", BATCH),
    () => purgeOrphanLinks(db, "volunteer", "volunteers", BATCH),
    () => purgeOrphanLinks(db, "newsletter-confirm", "newsletter_subscribers", BATCH),
    () => purgeOrphanLinks(db, "report-follow", "report_followers", BATCH),
    () => purgeOrphanLinks(db, "report-update", "report_update_requests", BATCH),
  ];
  let total = 0;
  for (const step of steps) total += await inBatches(step, signal);
  return total;
}

/** The hourly retention job: old mail deleted, old contact details erased, unconfirmed and stopped records deleted. */
export function retentionJob(db: Kysely<DB>): Job {
  return {
    name: "retention",
    intervalMs: 60 * 60_000,
    async run({ now, signal }) {
      const mailDeleted = await deleteOldMail(db, now, signal);
      const contactsErased = await eraseOldContactDetails(db, now, signal);
      const unconfirmedDeleted = await purgeUnconfirmed(db, now, signal);
      return { mailDeleted, contactsErased, unconfirmedDeleted };
    },
  };
}
