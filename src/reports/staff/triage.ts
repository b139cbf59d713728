import type { Kysely } from "kysely";
import type { Civic, Viewer } from "../../core/context.js";
import type { DB, ReportStatus } from "../../core/db/schema.js";
import { AppError, notFound } from "../../core/http/errors.js";
import { MAX_NOTE_LENGTH, STATUS_LABELS, TRANSITIONS } from "../model.js";
import { recordReportEvent } from "../events.js";
import { describePlace, loadGazetteer } from "../place-words.js";
import { duplicateLinks, type DuplicateLinks } from "../duplicates.js";
import { labelledAnswers } from "../../catalogue/index.js";
import type { AttributeValues } from "../attributes.js";
import { recordAudit } from "../../core/staff/audit.js";

export const MAX_STAFF_NOTE_LENGTH = 4000;

function problem(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, message }] });
}

/** Cleans a staff text field: trims, refuses empty (when required) and over-long text. */
export function staffText(value: string, field: string, label: string, max: number, required = true): string {
  const text = value.replace(/\r\n?/g, "\n").trim();
  if (required && text === "") throw problem(field, `Enter ${label}.`);
  if (text.length > max)
    throw problem(field, `${label[0]!.toUpperCase()}${label.slice(1)} must be at most ${max} characters.`);
  return text;
}

export interface StaffReport {
  id: number;
  reference: string;
  title: string;
  description: string;
  categoryCode: string;
  categoryName: string;
  status: ReportStatus;
  visibility: string;
  createdAt: string;
  updatedAt: string;
  forwardedAt: string | null;
  forwardedTo: string | null;
  hasReporterEmail: boolean;
  /** Where, in words (place-words.ts), and the map position. */
  placeInWords: string | null;
  lat: number | null;
  lng: number | null;
  /** The assigned staff member's name or address, and account id. */
  assignedTo: string | null;
  assignedToId: string | null;
  links: DuplicateLinks;
  /** The answers to the category's questions, under the label each was given under (removed questions marked). */
  answers: { code: string; label: string; answer: string; removed: boolean }[];
  history: { status: ReportStatus; previous: ReportStatus | null; note: string; at: string }[];
  notes: { id: number; body: string; at: string; author: string | null }[];
  next: readonly ReportStatus[];
}

/** A report's stored answers; anything that is not an object of answers (it never should be) shows as none. */
function storedAnswers(json: string): AttributeValues {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as AttributeValues) : {};
  } catch {
    return {};
  }
}

/** Everything staff see of one report, by reference (the reporter's contact details stay out of the page). */
export async function loadStaffReport(db: Kysely<DB>, reference: string): Promise<StaffReport> {
  const row = await db
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .select([
      "reports.id",
      "reports.reference",
      "reports.title",
      "reports.description",
      "reports.category_code",
      "categories.name as category_name",
      "categories.attributes as category_attributes",
      "categories.former_attributes as category_former_attributes",
      "reports.attributes",
      "reports.status",
      "reports.visibility",
      "reports.created_at",
      "reports.updated_at",
      "reports.forwarded_at",
      "reports.forwarded_to",
      "reports.reporter_email",
      "reports.assigned_to",
      "reports.latitude",
      "reports.longitude",
      "reports.location_text",
      "reports.place_id",
    ])
    .where("reports.reference", "=", reference)
    .executeTakeFirst();
  if (!row) throw notFound("There is no report with this reference.");
  const [history, notes, assignee, links, gazetteer] = await Promise.all([
    db
      .selectFrom("report_updates")
      .select(["status", "previous_status", "note", "created_at"])
      .where("report_id", "=", row.id)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    db
      .selectFrom("staff_notes")
      .leftJoin("accounts", "accounts.id", "staff_notes.author_id")
      .select(["staff_notes.id", "staff_notes.body", "staff_notes.created_at", "accounts.name", "accounts.email"])
      .where("staff_notes.report_id", "=", row.id)
      .orderBy("staff_notes.created_at")
      .orderBy("staff_notes.id")
      .execute(),
    row.assigned_to === null
      ? undefined
      : db.selectFrom("accounts").select(["name", "email"]).where("id", "=", row.assigned_to).executeTakeFirst(),
    duplicateLinks(db, row.reference, { staff: true }),
    loadGazetteer(db),
  ]);
  const placeName = row.place_id ? (gazetteer.find((p) => p.id === row.place_id)?.name ?? null) : null;
  return {
    id: row.id,
    reference: row.reference,
    title: row.title,
    description: row.description,
    categoryCode: row.category_code,
    categoryName: row.category_name,
    status: row.status,
    visibility: row.visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    forwardedAt: row.forwarded_at,
    forwardedTo: row.forwarded_to,
    hasReporterEmail: row.reporter_email !== null,
    placeInWords: describePlace(
      { lat: row.latitude, lng: row.longitude, placeName, locationText: row.location_text },
      gazetteer,
    ),
    lat: row.latitude,
    lng: row.longitude,
    assignedTo: row.assigned_to === null ? null : (assignee?.name ?? assignee?.email ?? "A former account"),
    assignedToId: row.assigned_to,
    links,
    answers: labelledAnswers(
      { attributes: row.category_attributes, former_attributes: row.category_former_attributes },
      storedAnswers(row.attributes),
    ),
    history: history.map((h) => ({ status: h.status, previous: h.previous_status, note: h.note, at: h.created_at })),
    notes: notes.map((n) => ({ id: n.id, body: n.body, at: n.created_at, author: n.name ?? n.email ?? null })),
    next: TRANSITIONS[row.status],
  };
}

/**
 * A public status change by staff: the new status with its update text (shown on the report's page, in the feeds
 * and as Open311 status_notes), an audit row, and a mail to the reporter and followers, all in one transaction
 * through the one path (events.ts). `expected` is the status the form showed: a form made stale by another change is refused.
 */
export async function staffChangeStatus(
  civic: Civic,
  viewer: Viewer,
  reference: string,
  input: { status: string; note: string; expected: string },
): Promise<void> {
  const db = civic.database.db;
  const report = await db
    .selectFrom("reports")
    .select(["id", "reference", "status", "reporter_email", "category_code"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (!report) throw notFound("There is no report with this reference.");
  if (input.expected !== report.status) {
    throw problem(
      "status",
      `This report's status changed to "${STATUS_LABELS[report.status]}" since you opened the page. Check it and choose again.`,
    );
  }
  const to = TRANSITIONS[report.status].find((s) => s === input.status);
  if (!to) {
    throw problem(
      "status",
      input.status in STATUS_LABELS
        ? `A report that is "${STATUS_LABELS[report.status]}" cannot change to "${STATUS_LABELS[input.status as ReportStatus]}".`
        : "Choose the new status.",
    );
  }
  const note = staffText(input.note, "note", "the public update text", MAX_NOTE_LENGTH);
  await recordReportEvent(db, { civic, now: civic.now(), by: "staff", accountId: viewer.accountId }, report.id, {
    kind: "status",
    to,
    note,
    expected: report.status,
  });
}

/** A private staff note on a report (never public), with its audit row. */
export async function addStaffNote(civic: Civic, viewer: Viewer, reference: string, body: string): Promise<void> {
  const db = civic.database.db;
  const report = await db.selectFrom("reports").select(["id"]).where("reference", "=", reference).executeTakeFirst();
  if (!report) throw notFound("There is no report with this reference.");
  const text = staffText(body, "body", "the note", MAX_STAFF_NOTE_LENGTH);
  const now = civic.now();
  await db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto("staff_notes")
      .values({ report_id: report.id, author_id: viewer.accountId, body: text, created_at: now.toISOString() })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "report.note",
      itemType: "report",
      itemId: reference,
      details: { note: row.id },
      at: now,
    });
  });
}
