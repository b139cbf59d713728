import { type Insertable, type Kysely, type QueryCreator, sql } from "kysely";
import { inCommittedTransaction } from "../core/db/commit-group.js";
import type { Database } from "../core/db/database.js";
import { firstPrepared } from "../core/db/prepared.js";
import { StatementTemplates } from "../core/db/templates.js";
import type { DB, ReportPhotosTable, ReportsTable, ReportVisibility } from "../core/db/schema.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import {
  insertOutbox,
  insertOutboxUnlessSuppressed,
  type OutgoingMail,
  withoutSuppressed,
} from "../core/mail/outbox.js";
import { bannedCondition } from "../moderation/index.js";
import { PUBLIC } from "../core/visibility.js";

/** A checked new report as stored: its row (visibility decided here), its photos and the mails it sends. */
export interface NewReport {
  row: Omit<Insertable<ReportsTable>, "visibility" | "withheld">;
  /**
   * The ban-list entries that would match the reporter (their address and their account's: see
   * moderation/ban-list.ts contributorBanCandidates), checked in the insert itself.
   */
  banCandidates: string[];
  photos: Omit<Insertable<ReportPhotosTable>, "report_id">[];
  /** Its mails; those to a suppressed address are not queued. */
  mails: OutgoingMail[];
  now: Date;
  /** Web forms: records the form token first, so a replay of it (even a concurrent one) creates nothing. */
  recordSubmission?: RecordSubmission | undefined;
  /** Runs in the same transaction once the report is stored: its forwarding to the council (forward.ts). */
  afterInsert?: ((tx: Kysely<DB>, id: number) => Promise<void>) | undefined;
}

const HIDDEN: ReportVisibility = "hidden";

/** A report's row and the ban-list entries that would match its reporter's address. */
type ReportValues = NewReport["row"] & { ban_candidates: string[] };

/**
 * The insert of a report. A sender on the ban list gets the usual answer; the report is kept but never published
 * (decided in the insert itself: no statement of its own).
 */
function buildReportInsert(db: QueryCreator<DB>, values: ReportValues) {
  const { ban_candidates, ...row } = values;
  const banned = bannedCondition(ban_candidates);
  return db
    .insertInto("reports")
    .values((eb) => ({
      ...row,
      // Literals, not parameters: PostgreSQL would type a CASE of parameters as text (wrong for `withheld`).
      visibility: banned ? eb.case().when(banned).then(sql.lit(HIDDEN)).else(sql.lit(PUBLIC)).end() : PUBLIC,
      withheld: banned ? eb.case().when(banned).then(sql.lit(1)).else(sql.lit(0)).end() : 0,
    }))
    .returning("id");
}

/** The insert compiled once per shape of row (SQLite; PostgreSQL's is part of one larger statement). */
const reportInserts = new WeakMap<Database, StatementTemplates<ReportValues, { id: number }>>();
function reportInsert(database: Database): StatementTemplates<ReportValues, { id: number }> {
  let templates = reportInserts.get(database);
  if (!templates) {
    templates = new StatementTemplates((values) => buildReportInsert(database.db, values));
    reportInserts.set(database, templates);
  }
  return templates;
}

/**
 * Stores a new report, its first "open" history entry, its photos and its mails (not those to a suppressed address)
 * atomically, and returns its id once committed. PostgreSQL: one statement (data-modifying WITH), so one round trip and an implicit transaction, unless
 * a form token is to be recorded first (then a transaction). SQLite: a transaction shared with concurrent
 * submissions (core/db/commit-group.ts).
 */
export async function storeReport(database: Database, r: NewReport): Promise<number> {
  const at = r.now.toISOString();
  const values: ReportValues = { ...r.row, ban_candidates: r.banCandidates };
  const insertReport = (db: QueryCreator<DB>) => buildReportInsert(db, values);
  // The record of the report's making (events.ts records everything that happens to it afterwards).
  const first = {
    status: "open",
    previous_status: null,
    note: "",
    created_at: at,
    author_kind: "reporter",
    event: "report",
  } as const;

  if (database.dialect === "postgres" && !r.recordSubmission && !r.afterInsert) {
    let q = database.db.with("new_report", insertReport).with("first_update", (db) =>
      db
        .insertInto("report_updates")
        .values((eb) => ({ report_id: eb.selectFrom("new_report").select("id"), ...first }))
        .returning("id"),
    );
    // CTEs added only when there are rows (an empty VALUES is no SQL); the final select reads only new_report, so
    // the casts to the first query's type lose nothing.
    if (r.photos.length > 0) {
      q = q.with("photos", (db) =>
        db
          .insertInto("report_photos")
          .values((eb) => r.photos.map((p) => ({ ...p, report_id: eb.selectFrom("new_report").select("id") })))
          .returning("id"),
      ) as unknown as typeof q;
    }
    // Each mail is its own insert, which leaves it out when its address is suppressed.
    r.mails.forEach((mail, i) => {
      q = q.with(`mail_${i}`, (db) =>
        insertOutboxUnlessSuppressed(db as unknown as QueryCreator<DB>, mail, r.now).returning("id"),
      ) as unknown as typeof q;
    });
    // Parsed and planned once per connection (a few shapes: with or without photos and each mail).
    const stored = await firstPrepared(database.db, q.selectFrom("new_report").select("id"));
    if (!stored) throw new Error("storeReport: the insert returned no row");
    return stored.id;
  }

  return inCommittedTransaction(database, async (tx) => {
    if (r.recordSubmission) await r.recordSubmission(tx, String(r.row.reference));
    const [stored] = (await tx.executeQuery(reportInsert(database).compile(values))).rows;
    if (!stored) throw new Error("storeReport: the insert returned no row");
    const { id } = stored;
    await tx
      .insertInto("report_updates")
      .values({ report_id: id, ...first })
      .execute();
    if (r.photos.length > 0) {
      await tx
        .insertInto("report_photos")
        .values(r.photos.map((p) => ({ ...p, report_id: id })))
        .execute();
    }
    const mails = await withoutSuppressed(tx, r.mails);
    if (mails.length > 0) await insertOutbox(tx, mails, r.now).execute();
    if (r.afterInsert) await r.afterInsert(tx, id);
    return id;
  });
}
