import type { Kysely } from "kysely";
import type { DB, Timestamp } from "../db/schema.js";

/** The actor of actions taken with the `civic` command (on the server, by whoever runs it). */
export const COMMAND_LINE_ACTOR = "command-line";

/** One staff action for the audit log. */
export interface AuditEntry {
  /** The staff account that acted; null for automatic actions (auto-hide, automatic suspension). */
  actorId: string | null;
  /** What was done, e.g. "report.status", "category.create", "role.grant". */
  action: string;
  /** What kind of thing it was done to, e.g. "report", "category", "account", "api_key". */
  itemType: string;
  itemId: string | number;
  reason?: string | null;
  /** What changed (small, no personal data beyond what staff already see). */
  details?: Record<string, unknown>;
  at: Date | Timestamp;
}

/**
 * Appends a row to the audit log. The log is append-only: nothing in the platform updates or deletes its rows.
 * Call it in the same transaction as the action, so an action is never without its row.
 */
export async function recordAudit(db: Kysely<DB>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      at: typeof entry.at === "string" ? entry.at : entry.at.toISOString(),
      actor_id: entry.actorId,
      action: entry.action,
      item_type: entry.itemType,
      item_id: String(entry.itemId),
      reason: entry.reason ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

export interface AuditFilter {
  action?: string;
  itemType?: string;
  itemId?: string;
  actorId?: string;
  /** ISO dates (inclusive), e.g. 2026-11-24. */
  from?: string;
  to?: string;
}

export interface AuditRow {
  id: number;
  at: Timestamp;
  actorId: string | null;
  actorLabel: string | null;
  action: string;
  itemType: string;
  itemId: string;
  reason: string | null;
  details: Record<string, unknown>;
}

export const AUDIT_PAGE_SIZE = 50;

function parseDetails(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A page of the audit log, newest first, with the total for the filter. */
export async function listAudit(
  db: Kysely<DB>,
  filter: AuditFilter,
  page: number,
): Promise<{ rows: AuditRow[]; total: number }> {
  let q = db.selectFrom("audit_log").leftJoin("accounts", "accounts.id", "audit_log.actor_id");
  if (filter.action) q = q.where("audit_log.action", "=", filter.action);
  if (filter.itemType) q = q.where("audit_log.item_type", "=", filter.itemType);
  if (filter.itemId) q = q.where("audit_log.item_id", "=", filter.itemId);
  if (filter.actorId) q = q.where("audit_log.actor_id", "=", filter.actorId);
  if (filter.from) q = q.where("audit_log.at", ">=", `${filter.from}T00:00:00.000Z`);
  if (filter.to) q = q.where("audit_log.at", "<=", `${filter.to}T23:59:59.999Z`);
  const [rows, count] = await Promise.all([
    q
      .select([
        "audit_log.id",
        "audit_log.at",
        "audit_log.actor_id",
        "audit_log.action",
        "audit_log.item_type",
        "audit_log.item_id",
        "audit_log.reason",
        "audit_log.details",
        "accounts.name",
        "accounts.email",
      ])
      .orderBy("audit_log.at", "desc")
      .orderBy("audit_log.id", "desc")
      .limit(AUDIT_PAGE_SIZE)
      .offset((page - 1) * AUDIT_PAGE_SIZE)
      .execute(),
    q.select((eb) => eb.fn.countAll<string | number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      id: r.id,
      at: r.at,
      actorId: r.actor_id,
      actorLabel: r.name ?? r.email ?? null,
      action: r.action,
      itemType: r.item_type,
      itemId: r.item_id,
      reason: r.reason,
      details: parseDetails(r.details),
    })),
  };
}

/** The distinct actions and item types in the log, for the filter's choices. */
export async function auditVocabulary(db: Kysely<DB>): Promise<{ actions: string[]; itemTypes: string[] }> {
  const [actions, types] = await Promise.all([
    db.selectFrom("audit_log").select("action").distinct().orderBy("action").limit(200).execute(),
    db.selectFrom("audit_log").select("item_type").distinct().orderBy("item_type").limit(200).execute(),
  ]);
  return { actions: actions.map((a) => a.action), itemTypes: types.map((t) => t.item_type) };
}
