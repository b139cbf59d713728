import type { Kysely } from "kysely";
import type { DB, ReportStatus, ReportVisibility } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";

export type { ReportStatus, ReportVisibility };

/** Every status, in the order they are shown in filters (FixMyStreet's states are the anchor). */
export const REPORT_STATUSES: readonly ReportStatus[] = [
  "open",
  "investigating",
  "in_progress",
  "action_scheduled",
  "fixed",
  "closed",
  "duplicate",
  "not_responsible",
];

/** The public label of each status. */
export const STATUS_LABELS: Record<ReportStatus, string> = {
  open: "Open",
  investigating: "Investigating",
  in_progress: "In progress",
  action_scheduled: "Action scheduled",
  fixed: "Fixed",
  closed: "Closed",
  duplicate: "Duplicate",
  not_responsible: "Not the council's responsibility",
};

/** Visibility is separate from status: a hidden or removed report keeps its status. */
export const REPORT_VISIBILITIES: readonly ReportVisibility[] = ["public", "hidden", "removed"];

export function isReportStatus(value: unknown): value is ReportStatus {
  return typeof value === "string" && (REPORT_STATUSES as readonly string[]).includes(value);
}

/** Open311 has two states only: the report is still being dealt with, or it is not. */
export function open311Status(status: ReportStatus): "open" | "closed" {
  switch (status) {
    case "open":
    case "investigating":
    case "in_progress":
    case "action_scheduled":
      return "open";
    default:
      return "closed";
  }
}

/** The statuses of a report still being dealt with (Open311 "open"): what is left when fixed and closed are hidden. */
export const UNRESOLVED_STATUSES: readonly ReportStatus[] = REPORT_STATUSES.filter((s) => open311Status(s) === "open");

/** Which status changes are allowed. A finished report can only be reopened (after review). */
export const TRANSITIONS: Readonly<Record<ReportStatus, readonly ReportStatus[]>> = {
  open: ["investigating", "in_progress", "action_scheduled", "fixed", "closed", "duplicate", "not_responsible"],
  investigating: ["in_progress", "action_scheduled", "fixed", "closed", "duplicate", "not_responsible"],
  in_progress: ["action_scheduled", "fixed", "closed"],
  action_scheduled: ["in_progress", "fixed", "closed"],
  fixed: ["open"],
  closed: ["open"],
  duplicate: ["open"],
  not_responsible: ["open"],
};

export function canTransition(from: ReportStatus, to: ReportStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export const MAX_NOTE_LENGTH = 2000;

/**
 * Changes a report's status when the transition table allows it, and records the change with its time and public
 * note in report_updates, in one transaction. Throws `not_found` for an unknown report and `validation_failed`
 * (field `status`) for a change the table does not allow.
 */
export async function changeStatus(
  db: Kysely<DB>,
  reportId: number,
  to: ReportStatus,
  note: string,
  at: Date,
  /** Runs in the same transaction after the change (audit row, mails), so all of it happens or none. */
  after?: (tx: Kysely<DB>, change: { from: ReportStatus; to: ReportStatus; note: string }) => Promise<void>,
): Promise<void> {
  const trimmed = note.trim();
  if (trimmed.length > MAX_NOTE_LENGTH) {
    throw new AppError("validation_failed", `The note must be at most ${MAX_NOTE_LENGTH} characters.`, {
      fields: [{ field: "note", message: `must be at most ${MAX_NOTE_LENGTH} characters` }],
    });
  }
  await db.transaction().execute(async (tx) => {
    const report = await tx
      .selectFrom("reports")
      .select(["id", "status"])
      .where("id", "=", reportId)
      .executeTakeFirst();
    if (!report) throw new AppError("not_found", "There is no report with this id.");
    if (!canTransition(report.status, to)) {
      const message = `A report that is "${STATUS_LABELS[report.status]}" cannot change to "${STATUS_LABELS[to]}".`;
      throw new AppError("validation_failed", message, { fields: [{ field: "status", message }] });
    }
    const iso = at.toISOString();
    // Guarded by the status read above, so two concurrent changes cannot both apply.
    const updated = await tx
      .updateTable("reports")
      .set({ status: to, updated_at: iso })
      .where("id", "=", reportId)
      .where("status", "=", report.status)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) {
      throw new AppError("validation_failed", "The report changed meanwhile; please try again.", {
        fields: [{ field: "status", message: "the report changed meanwhile" }],
      });
    }
    await tx
      .insertInto("report_updates")
      .values({ report_id: reportId, status: to, previous_status: report.status, note: trimmed, created_at: iso })
      .execute();
    await after?.(tx, { from: report.status, to, note: trimmed });
  });
}
