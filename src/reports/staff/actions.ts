import type { Kysely } from "kysely";
import type { Civic, Viewer } from "../../core/context.js";
import type { DB } from "../../core/db/schema.js";
import { AppError, notFound } from "../../core/http/errors.js";
import { isPublic } from "../../core/visibility.js";
import { rolesWhoMay } from "../../core/policy.js";
import { forwardReport } from "../forward.js";
import { MAX_NOTE_LENGTH, STATUS_LABELS, TRANSITIONS } from "../model.js";
import { recordReportEvent } from "../events.js";
import { looksLikeReference, normaliseReference } from "../reference.js";
import { recordAudit } from "../../core/staff/audit.js";
import { staffText } from "./triage.js";

/** The triage actions besides status and notes: category, forwarding, duplicates and assignment. All audited. */

export const MAX_REASON_LENGTH = 500;

function problem(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, message }] });
}

async function reportByReference(db: Kysely<DB>, reference: string) {
  const row = await db
    .selectFrom("reports")
    .select(["id", "reference", "status", "visibility", "category_code", "assigned_to", "duplicate_of"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (!row) throw notFound("There is no report with this reference.");
  return row;
}

/** Categories a report can be moved to: every category that is not retired. */
export function activeCategories(db: Kysely<DB>) {
  return db
    .selectFrom("categories")
    .select(["code", "name", "department_name", "department_email"])
    .where("retired_at", "is", null)
    .orderBy("sort_order")
    .orderBy("name")
    .execute();
}

/** Staff accounts a report can be assigned to (moderators and admins that are not suspended). */
export function staffMembers(db: Kysely<DB>) {
  return db
    .selectFrom("accounts")
    .select(["id", "name", "email"])
    .where("role", "in", rolesWhoMay("staff.enter"))
    .where("suspended_at", "is", null)
    .orderBy("email")
    .execute();
}

/**
 * Moves a report to another (not retired) category and forwards it to that category's department, if it has one.
 * `expected` is the category the form showed, so a form made stale by another change is refused.
 */
export async function staffChangeCategory(
  civic: Civic,
  viewer: Viewer,
  reference: string,
  input: { category: string; expected: string; reason: string },
): Promise<void> {
  const db = civic.database.db;
  const report = await reportByReference(db, reference);
  if (input.expected !== report.category_code) {
    throw problem("category", "This report's category changed since you opened the page. Check it and choose again.");
  }
  const category = (await activeCategories(db)).find((c) => c.code === input.category);
  if (!category) throw problem("category", "Choose a category from the list.");
  if (category.code === report.category_code) throw problem("category", "The report is in this category already.");
  const reason = staffText(input.reason, "category-reason", "the reason", MAX_REASON_LENGTH, false);
  const now = civic.now();
  await db.transaction().execute(async (tx) => {
    const moved = await tx
      .updateTable("reports")
      .set({ category_code: category.code, updated_at: now.toISOString() })
      .where("id", "=", report.id)
      .where("category_code", "=", report.category_code)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw problem("category", "The report changed meanwhile; try again.");
    const forwardedTo = await forwardReport(civic, tx, report.id, now);
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "report.category",
      itemType: "report",
      itemId: report.reference,
      reason: reason || null,
      details: { from: report.category_code, to: category.code, forwarded: forwardedTo !== null },
      at: now,
    });
  });
}

/** Sends the forwarding mail again to the department of the report's current category. */
export async function staffForwardAgain(
  civic: Civic,
  viewer: Viewer,
  reference: string,
  input: { reason: string },
): Promise<void> {
  const db = civic.database.db;
  const report = await reportByReference(db, reference);
  const reason = staffText(input.reason, "forward-reason", "the reason", MAX_REASON_LENGTH, false);
  const now = civic.now();
  await db.transaction().execute(async (tx) => {
    const to = await forwardReport(civic, tx, report.id, now);
    if (!to) throw problem("forward-reason", "This report's category has no council department to forward it to.");
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "report.forward",
      itemType: "report",
      itemId: report.reference,
      reason: reason || null,
      details: { category: report.category_code },
      at: now,
    });
  });
}

/**
 * Marks a report as a duplicate of another: through the transition table to "duplicate", with a public update that
 * names the original (mailed to the reporter and followers), both linked. Refuses a report as its own duplicate,
 * chains (the original is itself a duplicate, or this report already has duplicates) and originals the public
 * cannot see.
 */
export async function staffMarkDuplicate(
  civic: Civic,
  viewer: Viewer,
  reference: string,
  input: { original: string; note: string; expected: string },
): Promise<void> {
  const db = civic.database.db;
  const report = await reportByReference(db, reference);
  if (input.expected !== report.status) {
    throw problem("original", "This report's status changed since you opened the page. Check it and try again.");
  }
  if (!TRANSITIONS[report.status].includes("duplicate")) {
    throw problem(
      "original",
      `A report that is "${STATUS_LABELS[report.status]}" cannot be marked as a duplicate. Reopen it first.`,
    );
  }
  const typed = input.original.trim();
  if (typed === "") throw problem("original", "Enter the reference of the original report.");
  const originalReference = normaliseReference(typed.slice(0, 40));
  if (!looksLikeReference(originalReference)) {
    throw problem("original", "Enter a reference like AB12-CD34.");
  }
  if (originalReference === report.reference) throw problem("original", "A report cannot be a duplicate of itself.");
  const original = await db
    .selectFrom("reports")
    .select(["id", "reference", "visibility", "duplicate_of"])
    .where("reference", "=", originalReference)
    .executeTakeFirst();
  if (!original) throw problem("original", `There is no report with the reference ${originalReference}.`);
  if (!isPublic(original.visibility)) {
    throw problem("original", `Report ${original.reference} is hidden or removed; choose a public report.`);
  }
  if (original.duplicate_of !== null) {
    const first = await db
      .selectFrom("reports")
      .select("reference")
      .where("id", "=", original.duplicate_of)
      .executeTakeFirst();
    throw problem(
      "original",
      `Report ${original.reference} is itself a duplicate${first ? ` of ${first.reference}` : ""}; choose the original.`,
    );
  }
  const hasDuplicates = await db
    .selectFrom("reports")
    .select("id")
    .where("duplicate_of", "=", report.id)
    .executeTakeFirst();
  if (hasDuplicates) {
    throw problem("original", "Other reports are duplicates of this one, so it cannot become a duplicate itself.");
  }
  const extra = staffText(input.note, "duplicate-note", "the public update text", MAX_NOTE_LENGTH - 60, false);
  const note = `Duplicate of report ${original.reference}.${extra ? ` ${extra}` : ""}`;
  await recordReportEvent(db, { civic, now: civic.now(), by: "staff", accountId: viewer.accountId }, report.id, {
    kind: "status",
    to: "duplicate",
    note,
    expected: report.status,
    original,
  });
}

/** Assigns a report to a staff member ("" unassigns). `expected` is the assignee the form showed ("" for nobody). */
export async function staffAssign(
  civic: Civic,
  viewer: Viewer,
  reference: string,
  input: { assignee: string; expected: string },
): Promise<void> {
  const db = civic.database.db;
  const report = await reportByReference(db, reference);
  if (input.expected !== (report.assigned_to ?? "")) {
    throw problem("assignee", "Someone changed the assignment since you opened the page. Check it and choose again.");
  }
  const to = input.assignee === "" ? null : input.assignee;
  if (to !== null && !(await staffMembers(db)).some((s) => s.id === to)) {
    throw problem("assignee", "Choose a staff member from the list.");
  }
  if (to === report.assigned_to) throw problem("assignee", "The report is assigned like this already.");
  const now = civic.now();
  await db.transaction().execute(async (tx) => {
    await tx.updateTable("reports").set({ assigned_to: to }).where("id", "=", report.id).execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: to ? "report.assign" : "report.unassign",
      itemType: "report",
      itemId: report.reference,
      details: { from: report.assigned_to, to },
      at: now,
    });
  });
}
