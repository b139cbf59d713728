import { type Kysely, sql } from "kysely";
import type { DB, ReportStatus } from "../../core/db/schema.js";
import { looksLikeReference, normaliseReference } from "../reference.js";

export interface InboxFilter {
  status?: ReportStatus;
  category?: string;
  /** ISO dates (inclusive) on the report's creation. */
  from?: string;
  to?: string;
  /** A reference, or words in the title or description. */
  q?: string;
  /** An account id, or "none" for unassigned reports. */
  assigned?: string;
}

export interface InboxRow {
  reference: string;
  title: string;
  categoryName: string;
  status: ReportStatus;
  visibility: string;
  createdAt: string;
  assignedTo: string | null;
}

export const INBOX_PAGE_SIZE = 50;

/** Escapes LIKE wildcards so a search for "50%" means the text "50%". */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The triage inbox: unreviewed (open) reports first, newest first within each group; every visibility. */
export async function listInbox(
  db: Kysely<DB>,
  filter: InboxFilter,
  page: number,
): Promise<{ rows: InboxRow[]; total: number }> {
  let q = db
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("accounts", "accounts.id", "reports.assigned_to");
  if (filter.status) q = q.where("reports.status", "=", filter.status);
  if (filter.assigned === "none") q = q.where("reports.assigned_to", "is", null);
  else if (filter.assigned) q = q.where("reports.assigned_to", "=", filter.assigned);
  if (filter.category) q = q.where("reports.category_code", "=", filter.category);
  if (filter.from) q = q.where("reports.created_at", ">=", `${filter.from}T00:00:00.000Z`);
  if (filter.to) q = q.where("reports.created_at", "<=", `${filter.to}T23:59:59.999Z`);
  const search = filter.q?.trim();
  if (search) {
    const reference = normaliseReference(search);
    if (looksLikeReference(reference)) {
      q = q.where("reports.reference", "=", reference);
    } else {
      // Every word must appear in the title or the description (at most 8 words).
      for (const word of search.split(/\s+/).slice(0, 8)) {
        const pattern = likePattern(word);
        q = q.where((eb) =>
          eb.or([
            eb(sql`lower(reports.title)`, "like", sql`${pattern} escape '\\'`),
            eb(sql`lower(reports.description)`, "like", sql`${pattern} escape '\\'`),
          ]),
        );
      }
    }
  }
  const [rows, count] = await Promise.all([
    q
      .select([
        "reports.reference",
        "reports.title",
        "categories.name as category_name",
        "reports.status",
        "reports.visibility",
        "reports.created_at",
        "accounts.name as assignee_name",
        "accounts.email as assignee_email",
      ])
      .orderBy(sql`case when reports.status = 'open' then 0 else 1 end`)
      .orderBy("reports.created_at", "desc")
      .orderBy("reports.id", "desc")
      .limit(INBOX_PAGE_SIZE)
      .offset((page - 1) * INBOX_PAGE_SIZE)
      .execute(),
    q.select((eb) => eb.fn.countAll<string | number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      reference: r.reference,
      title: r.title,
      categoryName: r.category_name,
      status: r.status,
      visibility: r.visibility,
      createdAt: r.created_at,
      assignedTo: r.assignee_name ?? r.assignee_email ?? null,
    })),
  };
}
