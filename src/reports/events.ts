import { createHash } from "node:crypto";
import type { Kysely, Selectable, Updateable } from "kysely";
import type { Civic } from "../core/context.js";
import type {
  DB,
  ReportEventAuthor,
  ReportEventKind,
  ReportStatus,
  ReportVisibility,
  ReportsTable,
} from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { recordAudit } from "../core/staff/audit.js";
import { isPublic } from "../core/visibility.js";
import { updateRecipients } from "./followers.js";
import { canTransition, MAX_NOTE_LENGTH, STATUS_LABELS } from "./model.js";
import { statusUpdateMail } from "./staff/mails.js";

export type { ReportEventAuthor, ReportEventKind };

/**
 * The one path for "something happened to a report" (issue 36). Every change to a report after it was made — a
 * status change, a public update by staff, the council, a resident or the reporter, "I have seen this too", an
 * answer to "Is it fixed?", and moderation (hide, unhide, remove, redact, restore, hiding one update or photo) —
 * goes through recordReportEvent, which writes in one transaction:
 *
 * 1. the event's `report_updates` row (who made it as `author_kind`, what it was as `event`; internal records are
 *    never in the public history);
 * 2. the report's columns: status through the transition table (guarded, so two racing changes cannot both apply),
 *    `updated_at`, `duplicate_of`, visibility, redacted text, `moderated_at`;
 * 3. the audit row (events by staff, the council or the platform, and every status change; a moderation event's
 *    audit row is its moderation decision's, written by src/moderation in the same transaction);
 * 4. the mails to the reporter and the confirmed followers, each queued once (outbox key per event and recipient).
 *
 * Nothing else writes a report's status or text: test/staff/one-path.test.ts fails if a file does.
 */

/** Who acts, and how the event is kept once. */
export interface ReportEventContext {
  /** For the mails (site, links). null queues no mail: scripts, tests, the demo and moderation (it tells authors). */
  civic: Civic | null;
  now: Date;
  /** Who made the event. */
  by: ReportEventAuthor;
  /** The acting account: the staff member, or the signed-in resident or reporter; null for none. */
  accountId: string | null;
  /** Private: the confirmed address of a resident's or reporter's update (kept for erasure; they get no mail of it). */
  email?: string | null;
  /** When given, the same key records the event once only (a replayed form, a retried job, another instance). */
  key?: string;
}

/** What moderators do to a report or one of its parts. */
export type ReportModerationAction = "hide" | "unhide" | "remove";

export type ReportEvent =
  /** A public status change through the transition table, with its public note. To "duplicate": `original`. */
  | {
      kind: "status";
      to: ReportStatus;
      note: string;
      /** The status the form showed: refused when the report changed meanwhile. */
      expected?: ReportStatus;
      original?: { id: number; reference: string };
    }
  /** A public update without a status change (staff, council, resident or reporter, as `ctx.by` says). */
  | { kind: "update"; note: string }
  /** "I have seen this too": recorded, never listed, no mail (the count is the caller's table). */
  | { kind: "seen" }
  /**
   * The reporter's answer to "Is it fixed?": to "fixed" (or back to "open" when not) where the transition table
   * allows, with a public update ("The reporter says this is fixed." and the optional comment).
   */
  | { kind: "questionnaire"; fixed: boolean; note: string }
  /** Moderation of the report itself, or of one of its updates or photos (`part`). */
  | { kind: "moderation"; action: ReportModerationAction; part?: { kind: "update" | "photo"; id: number } }
  /** A moderator's edit of the title and description; the reporter's first original is kept. */
  | { kind: "moderation"; action: "redact"; title: string; description: string }
  /** An admin puts the reporter's original text back. */
  | { kind: "moderation"; action: "restore" };

export interface RecordedReportEvent {
  /** The event's report_updates row. */
  updateId: number;
  /** False when an event with the same key was recorded before (nothing was written now). */
  created: boolean;
  from: ReportStatus;
  to: ReportStatus;
  /** How many mails were queued. */
  mailed: number;
}

/** Who wrote a public update, in its mail, when it was not the council (a resident's or the reporter's). */
const UPDATE_FROM: Partial<Record<ReportEventAuthor, string>> = { resident: "a resident", reporter: "the reporter" };

const STATE_OF: Record<ReportModerationAction, ReportVisibility> = {
  hide: "hidden",
  unhide: "public",
  remove: "removed",
};

function problem(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, message }] });
}

function noteOf(raw: string, required: boolean): string {
  const note = raw.replace(/\r\n?/g, "\n").trim();
  if (required && note === "") throw problem("note", "Enter the text of the update.");
  if (note.length > MAX_NOTE_LENGTH) throw problem("note", `The note must be at most ${MAX_NOTE_LENGTH} characters.`);
  return note;
}

/** The outbox key of an event's mail to one address (a hash: never the address). */
function mailKey(updateId: number, to: string): string {
  const who = createHash("sha256").update(to.trim().toLowerCase()).digest("hex").slice(0, 32);
  return `report-event:${updateId}:${who}`;
}

/** What an event does, worked out from the report as it is in the transaction. */
interface Plan {
  to: ReportStatus;
  note: string;
  internal: boolean;
  action: string | null;
  set: Updateable<ReportsTable>;
  part?: { table: "report_updates" | "report_photos"; id: number; state: ReportVisibility };
  audit: { action: string; reason: string | null; details: Record<string, unknown> } | null;
  notify: boolean;
}

type Loaded = Pick<
  Selectable<ReportsTable>,
  | "status"
  | "visibility"
  | "title"
  | "description"
  | "original_title"
  | "original_description"
  | "duplicate_of"
  | "id"
  | "reference"
>;

function plan(report: Loaded, ctx: ReportEventContext, event: ReportEvent): Plan {
  const iso = ctx.now.toISOString();
  const from = report.status;
  const staffish = ctx.by === "staff" || ctx.by === "council" || ctx.by === "system";
  const statusChange = (to: ReportStatus): Updateable<ReportsTable> => {
    if (!canTransition(from, to)) {
      throw problem("status", `A report that is "${STATUS_LABELS[from]}" cannot change to "${STATUS_LABELS[to]}".`);
    }
    // A duplicate that is reopened stands on its own again.
    return { status: to, updated_at: iso, ...(from === "duplicate" ? { duplicate_of: null } : {}) };
  };
  switch (event.kind) {
    case "status": {
      if (event.expected !== undefined && event.expected !== from) {
        throw problem(
          "status",
          `This report's status changed to "${STATUS_LABELS[from]}" since you opened the page. Check it and choose again.`,
        );
      }
      if (event.to === "duplicate" && !event.original) throw problem("original", "Name the original report.");
      const note = noteOf(event.note, false);
      const set = statusChange(event.to);
      if (event.to === "duplicate" && event.original) set.duplicate_of = event.original.id;
      return {
        to: event.to,
        note,
        internal: false,
        action: null,
        set,
        audit:
          event.to === "duplicate" && event.original
            ? { action: "report.duplicate", reason: note, details: { original: event.original.reference, from } }
            : { action: "report.status", reason: note, details: { from, to: event.to } },
        notify: true,
      };
    }
    case "update": {
      const note = noteOf(event.note, true);
      return {
        to: from,
        note,
        internal: false,
        action: null,
        set: { updated_at: iso },
        audit: staffish ? { action: "report.update", reason: null, details: { by: ctx.by, status: from } } : null,
        notify: true,
      };
    }
    case "seen":
      return { to: from, note: "", internal: true, action: null, set: {}, audit: null, notify: false };
    case "questionnaire": {
      const comment = noteOf(event.note, false);
      const said = event.fixed ? "The reporter says this is fixed." : "The reporter says this is still a problem.";
      const note = noteOf(comment ? `${said} ${comment}` : said, true);
      const wanted: ReportStatus = event.fixed ? "fixed" : "open";
      const moves = wanted !== from && canTransition(from, wanted);
      return {
        to: moves ? wanted : from,
        note,
        internal: false,
        action: event.fixed ? "fixed" : "not-fixed",
        set: moves ? statusChange(wanted) : { updated_at: iso },
        audit: moves
          ? { action: "report.status", reason: note, details: { from, to: wanted, by: ctx.by, questionnaire: true } }
          : null,
        notify: true,
      };
    }
    case "moderation": {
      const base = { to: from, note: "", internal: true, audit: null, notify: false } as const;
      if (event.action === "redact") {
        return {
          ...base,
          action: "redact",
          set: {
            title: event.title,
            description: event.description,
            original_title: report.original_title ?? report.title,
            original_description: report.original_description ?? report.description,
            moderated_at: iso,
          },
        };
      }
      if (event.action === "restore") {
        if (report.original_title === null || report.original_description === null) {
          throw new AppError("validation_failed", "This report's text was never edited by a moderator.", {
            fields: [{ field: "reason", message: "there is no original text to restore" }],
          });
        }
        return {
          ...base,
          action: "restore",
          set: {
            title: report.original_title,
            description: report.original_description,
            original_title: null,
            original_description: null,
            moderated_at: iso,
          },
        };
      }
      const state = STATE_OF[event.action];
      if (event.part) {
        return {
          ...base,
          action: `${event.action}-${event.part.kind}`,
          set: { moderated_at: iso },
          part: {
            table: event.part.kind === "update" ? "report_updates" : "report_photos",
            id: event.part.id,
            state,
          },
        };
      }
      return { ...base, action: event.action, set: { visibility: state, moderated_at: iso } };
    }
  }
}

/**
 * Records one event on a report (by id) in one transaction — the caller's, when `db` is a transaction already (the
 * moderation decision's), else its own: the report_updates row, the report's columns, the audit row and the mails.
 * Throws `not_found` for an unknown report (and, for residents and reporters, one the public cannot see), and
 * `validation_failed` for a change the transition table does not allow or a report changed meanwhile.
 */
export async function recordReportEvent(
  db: Kysely<DB>,
  ctx: ReportEventContext,
  reportId: number,
  event: ReportEvent,
): Promise<RecordedReportEvent> {
  const run = async (tx: Kysely<DB>): Promise<RecordedReportEvent> => {
    const report = await tx
      .selectFrom("reports")
      .select([
        "id",
        "reference",
        "status",
        "visibility",
        "title",
        "description",
        "original_title",
        "original_description",
        "duplicate_of",
      ])
      .where("id", "=", reportId)
      .executeTakeFirst();
    if (!report) throw new AppError("not_found", "There is no report with this id.");
    if ((ctx.by === "resident" || ctx.by === "reporter") && !isPublic(report.visibility)) {
      throw new AppError("not_found", "There is no report with this id.");
    }
    if (ctx.key !== undefined) {
      const earlier = await tx
        .selectFrom("report_updates")
        .select(["id", "status", "previous_status"])
        .where("event_key", "=", ctx.key)
        .executeTakeFirst();
      if (earlier) {
        return {
          updateId: earlier.id,
          created: false,
          from: earlier.previous_status ?? earlier.status,
          to: earlier.status,
          mailed: 0,
        };
      }
    }
    const p = plan(report, ctx, event);
    const iso = ctx.now.toISOString();
    // The row first: with a key, a concurrent twin waits on it here and then writes nothing.
    const inserted = await tx
      .insertInto("report_updates")
      .values({
        report_id: report.id,
        status: p.to,
        previous_status: report.status,
        note: p.note,
        created_at: iso,
        author_kind: ctx.by,
        event: event.kind,
        action: p.action,
        author_account_id: ctx.by === "resident" || ctx.by === "reporter" ? ctx.accountId : null,
        author_email: ctx.by === "resident" || ctx.by === "reporter" ? (ctx.email ?? null) : null,
        internal: p.internal ? 1 : 0,
        event_key: ctx.key ?? null,
      })
      .onConflict((oc) => oc.column("event_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      const earlier = await tx
        .selectFrom("report_updates")
        .select(["id"])
        .where("event_key", "=", ctx.key ?? "")
        .executeTakeFirstOrThrow();
      return { updateId: earlier.id, created: false, from: report.status, to: report.status, mailed: 0 };
    }
    if (Object.keys(p.set).length > 0) {
      // Guarded by the status read above, so two concurrent changes cannot both apply.
      const updated = await tx
        .updateTable("reports")
        .set(p.set)
        .where("id", "=", report.id)
        .where("status", "=", report.status)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) {
        throw problem("status", "The report changed meanwhile; please try again.");
      }
    }
    if (p.part) {
      const moved = await tx
        .updateTable(p.part.table)
        .set({ visibility: p.part.state })
        .where("id", "=", p.part.id)
        .where("report_id", "=", report.id)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new AppError("not_found", "There is no such part of this report.");
    }
    if (p.audit) {
      await recordAudit(tx, {
        actorId: ctx.accountId,
        action: p.audit.action,
        itemType: "report",
        itemId: report.reference,
        reason: p.audit.reason,
        details: p.audit.details,
        at: ctx.now,
      });
    }
    let mailed = 0;
    if (p.notify && ctx.civic) {
      const civic = ctx.civic;
      const author = ctx.email?.trim().toLowerCase();
      const from = event.kind === "update" ? UPDATE_FROM[ctx.by] : undefined;
      const update = { reference: report.reference, statusLabel: STATUS_LABELS[p.to], note: p.note, from };
      for (const r of await updateRecipients(civic, tx, report.id)) {
        if (author && r.to.toLowerCase() === author) continue; // not told of their own update
        const mail = { ...statusUpdateMail(civic, r.to, update, r.unsubscribeUrl), key: mailKey(inserted.id, r.to) };
        if ((await enqueueMail(tx, mail, ctx.now)) !== null) mailed++;
      }
    }
    return { updateId: inserted.id, created: true, from: report.status, to: p.to, mailed };
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** A status change recorded by the platform itself, without mail (scripts, tests, the demo): the path's shorthand. */
export async function changeStatus(
  db: Kysely<DB>,
  reportId: number,
  to: ReportStatus,
  note: string,
  at: Date,
): Promise<RecordedReportEvent> {
  return recordReportEvent(db, { civic: null, now: at, by: "system", accountId: null }, reportId, {
    kind: "status",
    to,
    note,
  });
}
