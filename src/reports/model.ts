import type { ReportStatus, ReportVisibility } from "../core/db/schema.js";

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
