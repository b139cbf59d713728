import type { Kysely } from "kysely";
import { normaliseEmail } from "../core/email-address.js";
import { recordAudit } from "../core/staff/audit.js";
import type { Civic, Viewer } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { Problems, requireReason } from "./text.js";

export interface DepartmentInput {
  name: string;
  email: string;
  reason: string;
}

export interface DepartmentListing {
  id: number;
  name: string;
  email: string;
  /** "email" or "open311" (catalogue/delivery.ts). */
  delivery: string;
  categories: number;
}

/** Every department with how many categories (active or retired) forward to it. */
export async function listDepartments(db: Kysely<DB>): Promise<DepartmentListing[]> {
  const rows = await db
    .selectFrom("departments")
    .leftJoin("categories", "categories.department_id", "departments.id")
    .select((eb) => [
      "departments.id",
      "departments.name",
      "departments.email",
      "departments.delivery",
      eb.fn.count<string | number>("categories.code").as("n"),
    ])
    .groupBy(["departments.id", "departments.name", "departments.email", "departments.delivery"])
    .orderBy("departments.name")
    .limit(1000)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    delivery: r.delivery,
    categories: Number(r.n),
  }));
}

export async function findDepartment(db: Kysely<DB>, id: number) {
  return db.selectFrom("departments").selectAll().where("id", "=", id).executeTakeFirst();
}

async function checkDepartment(db: Kysely<DB>, input: DepartmentInput, id: number | null) {
  const p = new Problems();
  const name = p.line("name", input.name, 120, "the department’s name");
  const email = normaliseEmail(input.email);
  if (!input.email.trim()) p.add("email", "Enter the address reports are forwarded to.");
  else if (!email || email.length > 254) p.add("email", "Enter an email address like roads@council.example.org.");
  if (name) {
    const same = await db.selectFrom("departments").select("id").where("name", "=", name).executeTakeFirst();
    if (same && same.id !== id) p.add("name", "There is already a department with this name.");
  }
  p.fail();
  return { name, email: email as string };
}

/** A new department. Audited. */
export async function createDepartment(civic: Civic, viewer: Viewer, input: DepartmentInput): Promise<number> {
  const now = civic.now().toISOString();
  return civic.database.db.transaction().execute(async (tx) => {
    const clean = await checkDepartment(tx, input, null);
    const { id } = await tx
      .insertInto("departments")
      .values({ ...clean, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "department.create",
      itemType: "department",
      itemId: id,
      reason: input.reason.trim() || null,
      details: clean,
      at: now,
    });
    return id;
  });
}

/** Renames a department or changes its address; its categories' copies follow in the same transaction. Audited. */
export async function updateDepartment(
  civic: Civic,
  viewer: Viewer,
  id: number,
  input: DepartmentInput,
): Promise<void> {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const before = await findDepartment(tx, id);
    if (!before) throw new AppError("not_found", "There is no department with this id.");
    const clean = await checkDepartment(tx, input, id);
    await tx
      .updateTable("departments")
      .set({ ...clean, updated_at: now })
      .where("id", "=", id)
      .execute();
    await tx
      .updateTable("categories")
      .set({ department_name: clean.name, department_email: clean.email })
      .where("department_id", "=", id)
      .execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "department.update",
      itemType: "department",
      itemId: id,
      reason: input.reason.trim() || null,
      details: { from: { name: before.name, email: before.email }, to: clean },
      at: now,
    });
  });
}

/**
 * Deletes a department that no category (active or retired) uses. A used one stays: retired categories' reports
 * still name it as where they were forwarded, so it is renamed or its categories moved, never deleted. Audited.
 */
export async function deleteDepartment(civic: Civic, viewer: Viewer, id: number, reason: string): Promise<void> {
  const now = civic.now().toISOString();
  await civic.database.db.transaction().execute(async (tx) => {
    const before = await findDepartment(tx, id);
    if (!before) throw new AppError("not_found", "There is no department with this id.");
    requireReason(reason, "delete_reason");
    const used = await tx.selectFrom("categories").select("code").where("department_id", "=", id).execute();
    if (used.length > 0) {
      throw new AppError(
        "validation_failed",
        `This department is used by ${used.length} categor${used.length === 1 ? "y" : "ies"}.`,
        {
          fields: [
            {
              field: "delete",
              message: `It cannot be deleted while categories use it (${used.map((u) => u.code).join(", ")}): move them to another department first.`,
            },
          ],
        },
      );
    }
    await tx.deleteFrom("departments").where("id", "=", id).execute();
    await recordAudit(tx, {
      actorId: viewer.accountId,
      action: "department.delete",
      itemType: "department",
      itemId: id,
      reason: reason.trim() || null,
      details: { name: before.name, email: before.email },
      at: now,
    });
  });
}

/**
 * Links categories that name a department (name and address) but point at none to a department row, creating it
 * when needed: for categories loaded by the demo seed or an import, which know only the copied columns.
 */
export async function linkDepartments(db: Kysely<DB>, at: string): Promise<void> {
  const pairs = await db
    .selectFrom("categories")
    .select(["department_name", "department_email"])
    .distinct()
    .where("department_id", "is", null)
    .where("department_name", "is not", null)
    .where("department_email", "is not", null)
    .execute();
  for (const { department_name: name, department_email: email } of pairs) {
    if (!name || !email) continue;
    const department =
      (await db.selectFrom("departments").select(["id", "email"]).where("name", "=", name).executeTakeFirst()) ??
      (await db
        .insertInto("departments")
        .values({ name, email, created_at: at, updated_at: at })
        .returning(["id", "email"])
        .executeTakeFirstOrThrow());
    await db
      .updateTable("categories")
      .set({ department_id: department.id, department_email: department.email })
      .where("department_name", "=", name)
      .where("department_id", "is", null)
      .execute();
  }
}
