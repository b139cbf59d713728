import type { Kysely, Transaction } from "kysely";
import { recordAudit } from "../core/staff/audit.js";
import type { Civic, Viewer } from "../core/context.js";
import type { Category, DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { parseId } from "../core/http/ids.js";
import { findDepartment } from "./departments.js";
import { CODE_PATTERN, CODE_RULE, Problems, requireReason } from "./text.js";

/** What the category form posts (strings as typed; `code` only when creating). */
export interface CategoryInput {
  code: string;
  name: string;
  description: string;
  group: string;
  keywords: string;
  department: string;
  order: string;
  reason: string;
}

export const MAX_KEYWORDS = 30;

/** Every category, active ones first, each with how many reports it has. */
export async function listCategories(db: Kysely<DB>) {
  const [categories, counts] = await Promise.all([
    db
      .selectFrom("categories")
      .select(["code", "name", "group_name", "department_name", "retired_at", "sort_order", "attributes"])
      .orderBy("sort_order")
      .orderBy("name")
      .limit(1000)
      .execute(),
    db
      .selectFrom("reports")
      .select((eb) => ["category_code", eb.fn.countAll<string | number>().as("n")])
      .groupBy("category_code")
      .execute(),
  ]);
  const reports = new Map(counts.map((c) => [c.category_code, Number(c.n)]));
  const listed = categories.map((c) => ({ ...c, reports: reports.get(c.code) ?? 0 }));
  return [...listed.filter((c) => !c.retired_at), ...listed.filter((c) => c.retired_at)];
}

export async function findCategory(db: Kysely<DB>, code: string): Promise<Category | undefined> {
  return db.selectFrom("categories").selectAll().where("code", "=", code).executeTakeFirst();
}

/** A category by code, or a 404 page. */
export async function categoryOr404(db: Kysely<DB>, code: string): Promise<Category> {
  const category = await findCategory(db, code);
  if (!category) throw new AppError("not_found", "There is no category with this code.");
  return category;
}

/** The keywords as the form shows them: comma-separated. */
export function keywordText(json: string): string {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((w) => typeof w === "string").join(", ") : "";
  } catch {
    return "";
  }
}

async function checkCategory(db: Kysely<DB>, input: CategoryInput, creating: boolean) {
  const p = new Problems();
  let code = "";
  if (creating) {
    code = input.code.trim();
    if (!code) p.add("code", `Enter a service code. ${CODE_RULE}`);
    else if (!CODE_PATTERN.test(code)) p.add("code", `The service code is not valid. ${CODE_RULE}`);
    else if (await findCategory(db, code)) {
      // Codes are never reused: Open311 clients and existing reports know a code as one category forever.
      p.add("code", "This service code is taken (by an active or retired category); choose another.");
    }
  }
  const name = p.line("name", input.name, 100, "the category’s name");
  const description = p.text("description", input.description, 1000, "a description", false);
  const group = p.line("group", input.group, 100, "the group", false);
  const keywordsText = p.line("keywords", input.keywords, 1000, "the keywords", false);
  const keywords = [
    ...new Set(
      keywordsText
        .split(",")
        .map((k) => k.trim())
        .filter((k) => k !== ""),
    ),
  ];
  if (keywords.length > MAX_KEYWORDS) p.add("keywords", `Give at most ${MAX_KEYWORDS} keywords.`);
  let department: { id: number; name: string; email: string } | null = null;
  if (input.department.trim()) {
    const id = parseId(input.department.trim()) ?? 0;
    department = (await findDepartment(db, id)) ?? null;
    if (!department) p.add("department", "Choose a department from the list (it may have been deleted).");
  }
  const orderText = input.order.trim() || "0";
  const order = /^-?\d{1,6}$/.test(orderText) ? Number(orderText) : Number.NaN;
  if (!Number.isInteger(order)) p.add("order", "The position must be a whole number between -999999 and 999999.");
  p.fail();
  return {
    code,
    fields: {
      name,
      description,
      group_name: group || null,
      keywords: JSON.stringify(keywords),
      department_id: department?.id ?? null,
      department_name: department?.name ?? null,
      department_email: department?.email ?? null,
      sort_order: order,
    },
  };
}

type Fields = Awaited<ReturnType<typeof checkCategory>>["fields"];

function changes(before: Category, after: Fields): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of ["name", "description", "group_name", "keywords", "department_name", "sort_order"] as const) {
    if (before[key] !== after[key]) out[key] = { from: before[key], to: after[key] };
  }
  return out;
}

/** A new category (no questions yet: they are added on its questions page). Audited. */
export async function createCategory(civic: Civic, viewer: Viewer, input: CategoryInput): Promise<string> {
  const now = civic.now().toISOString();
  return civic.database.db.transaction().execute(async (tx) => {
    const { code, fields } = await checkCategory(tx, input, true);
    await tx
      .insertInto("categories")
      .values({ code, ...fields, attributes: "[]", is_public: 1 })
      .execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "category.create",
      itemType: "category",
      itemId: code,
      reason: input.reason.trim() || null,
      details: { name: fields.name, department: fields.department_name },
      at: now,
    });
    return code;
  });
}

/** Edits a category's name, description, group, keywords, department and position. Audited with what changed. */
export async function updateCategory(civic: Civic, viewer: Viewer, code: string, input: CategoryInput) {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const before = await categoryOr404(tx, code);
    const { fields } = await checkCategory(tx, input, false);
    await tx.updateTable("categories").set(fields).where("code", "=", code).execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "category.update",
      itemType: "category",
      itemId: code,
      reason: input.reason.trim() || null,
      details: changes(before, fields),
      at: now,
    });
  });
}

/**
 * Retires a category (no new reports by web, drafts or Open311; gone from the form and services lists) or brings
 * it back. Its reports keep it and still show it. Audited.
 */
export async function setRetired(civic: Civic, viewer: Viewer, code: string, retired: boolean, reason: string) {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx: Transaction<DB>) => {
    const before = await categoryOr404(tx, code);
    requireReason(reason, "retire_reason");
    if (!!before.retired_at === retired) {
      throw new AppError("validation_failed", "Nothing to change.", {
        fields: [
          { field: "retire", message: retired ? "The category is already retired." : "The category is in use." },
        ],
      });
    }
    await tx
      .updateTable("categories")
      .set({ retired_at: retired ? now : null })
      .where("code", "=", code)
      .execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: retired ? "category.retire" : "category.unretire",
      itemType: "category",
      itemId: code,
      reason: reason.trim() || null,
      at: now,
    });
  });
}
