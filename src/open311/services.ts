import type { Kysely } from "kysely";
import { firstPrepared } from "../core/db/prepared.js";
import type { Category, DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { categoryAttributes } from "../reports/index.js";
import type { Service, ServiceDefinition } from "./schemas.js";

/** The public report categories that take new reports (not retired), in their display order. */
export async function publicCategories(db: Kysely<DB>): Promise<Category[]> {
  return db
    .selectFrom("categories")
    .selectAll()
    .where("is_public", "=", 1)
    .where("retired_at", "is", null)
    .orderBy("sort_order")
    .execute();
}

async function findPublic(db: Kysely<DB>, code: string): Promise<Category> {
  const category = await firstPrepared(
    db,
    db.selectFrom("categories").selectAll().where("code", "=", code).where("is_public", "=", 1),
  );
  if (!category) throw new AppError("not_found", `service_code "${code}" was not found.`);
  return category;
}

/** A public category that takes new reports, by its code, or a 404 in Open311 terms (retired ones included). */
export async function publicCategory(db: Kysely<DB>, code: string): Promise<Category> {
  const category = await findPublic(db, code);
  if (category.retired_at) throw new AppError("not_found", `service_code "${code}" was not found.`);
  return category;
}

/**
 * The category a new service request names: a 404 when unknown, a 400 when retired (it took requests once, so the
 * client is told why it no longer does rather than that it never existed).
 */
export async function openCategory(db: Kysely<DB>, code: string): Promise<Category> {
  const category = await findPublic(db, code);
  if (category.retired_at) {
    throw new AppError(
      "validation_failed",
      `service_code "${code}" is retired and takes no new requests; choose another service from services.json.`,
      { fields: [{ field: "service_code", message: "is retired and takes no new requests" }] },
    );
  }
  return category;
}

function keywords(json: string): string | null {
  try {
    const list: unknown = JSON.parse(json);
    if (Array.isArray(list)) {
      const words = list.filter((w): w is string => typeof w === "string" && w.trim() !== "");
      return words.length > 0 ? words.join(", ") : null;
    }
  } catch {
    // A broken keyword list is no reason to fail the service list.
  }
  return null;
}

/** A category as an Open311 service. `metadata` is true when it asks extra questions. */
export function toService(category: Category): Service {
  return {
    service_code: category.code,
    service_name: category.name,
    description: category.description || null,
    metadata: categoryAttributes(category).length > 0,
    type: "realtime",
    keywords: keywords(category.keywords),
    group: category.group_name,
  };
}

/** A category's questions as an Open311 service definition, in their `order`. */
export function toServiceDefinition(category: Category): ServiceDefinition {
  return {
    service_code: category.code,
    attributes: categoryAttributes(category).map((a) => ({
      variable: a.variable,
      code: a.code,
      datatype: a.datatype,
      required: a.required,
      datatype_description: a.datatypeDescription ?? null,
      order: a.order,
      description: a.description,
      ...(a.datatype === "singlevaluelist" || a.datatype === "multivaluelist"
        ? { values: (a.values ?? []).map((v) => ({ key: v.key, name: v.name })) }
        : {}),
    })),
  };
}
