import type { Kysely } from "kysely";
import type { Config } from "../config.js";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { OutboundError } from "../core/http/outbound.js";
import { seal } from "../core/sealed.js";
import { recordAudit } from "../core/staff/audit.js";
import {
  COUNCIL_KEY_PURPOSE,
  type CouncilService,
  type CouncilStatusTarget,
  councilStatusTable,
  councilStatusWord,
  DEFAULT_COUNCIL_STATUSES,
  fetchServiceDefinition,
  fetchServices,
  isCouncilStatusTarget,
  REPORT_STATUSES,
} from "../reports/index.js";

/**
 * A department's delivery method (issue 37): email, or a council's Open311 endpoint with its API key (sealed,
 * core/sealed.ts: a database dump alone does not reveal it; it is never shown again, logged or audited), optional
 * jurisdiction_id and two mappings: our category codes to the council's service codes, and the council's attribute
 * codes to our questions' codes, and a status table: the council's Open311 status words to our statuses, over
 * the default table (DEFAULT_COUNCIL_STATUSES). Sending and polling are the reports feature's (reports/forward.ts,
 * reports/council-poll.ts).
 */
export interface DeliveryInput {
  method: "email" | "open311";
  endpoint?: string | undefined;
  /** A new key; undefined keeps the stored one. */
  apiKey?: string | undefined;
  jurisdiction?: string | undefined;
  services?: Record<string, string> | undefined;
  attributes?: Record<string, string> | undefined;
  /** The council's status words → our statuses or `ignore` (parseStatusTable); {} for the default table. */
  statuses?: Record<string, string> | undefined;
}

function fail(field: string, message: string): never {
  throw new AppError("validation_failed", message, { fields: [{ field, message }] });
}

/** A code in a mapping: ours (a category or question) or the council's (a service or attribute). */
export const MAPPING_CODE = /^[\w.:-]{1,100}$/;
export const MAPPING_CODE_MESSAGE = "Codes are 1 to 100 letters, digits, dots, colons, hyphens or underscores.";

function checkMapping(field: string, value: Record<string, string> | undefined): string | undefined {
  if (value === undefined) return undefined;
  const entries = Object.entries(value);
  if (entries.length > 500) fail(field, "At most 500 pairs.");
  for (const [k, v] of entries) {
    if (!MAPPING_CODE.test(k) || typeof v !== "string" || !MAPPING_CODE.test(v)) fail(field, MAPPING_CODE_MESSAGE);
  }
  return JSON.stringify(value);
}

/** Parses `a=b,c=d` (the CLI's and the form's mapping notation). */
export function parseMapping(text: string, field = "mapping"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(/[,\n]/)) {
    const [k, v, extra] = pair.split("=").map((p) => p.trim());
    if (!k && !v) continue;
    if (!k || !v || extra !== undefined) fail(field, `"${pair.trim().slice(0, 40)}" is not code=code.`);
    out[k] = v;
  }
  return out;
}

const STATUS_TARGETS = [...REPORT_STATUSES.filter((st) => st !== "duplicate"), "ignore"].join(", ");

/**
 * Parses a status table in the CLI's and the form's notation, `open=open,closed=fixed,…` (commas or new lines):
 * each council status word (normalised: `In Progress` is `in_progress`) to one of our statuses (not "duplicate":
 * the council names no original) or `ignore` (its notes only). Throws a validation error for the field `statuses`.
 */
export function parseStatusTable(text: string): Record<string, CouncilStatusTarget> {
  const out: Record<string, CouncilStatusTarget> = {};
  for (const pair of text.split(/[,\n]/)) {
    const [k, v, extra] = pair.split("=").map((p) => p.trim());
    if (!k && !v) continue;
    if (!k || !v || extra !== undefined) {
      fail("statuses", `"${pair.trim().slice(0, 40)}" is not councilStatus=ourStatus.`);
    }
    const word = councilStatusWord(k);
    if (!/^[a-z0-9_]{1,50}$/.test(word)) {
      fail("statuses", `"${k.slice(0, 40)}": a council status is 1 to 50 letters, digits or underscores.`);
    }
    const target = v.toLowerCase();
    if (!isCouncilStatusTarget(target)) fail("statuses", `"${v.slice(0, 40)}" is not one of: ${STATUS_TARGETS}.`);
    out[word] = target;
  }
  if (Object.keys(out).length > 100) fail("statuses", "At most 100 pairs.");
  return out;
}

/** A status table in the notation parseStatusTable reads (the stored JSON, or a table), one pair per line. */
export function formatStatusTable(table: string | Record<string, string>): string {
  let value: unknown = table;
  if (typeof table === "string") {
    try {
      value = JSON.parse(table);
    } catch {
      value = {};
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return "";
  return Object.entries(value as Record<string, unknown>)
    .filter((e): e is [string, string] => typeof e[1] === "string")
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");
}

/** The table a department's polling uses: its own pairs over the default table, in the same notation. */
export function effectiveStatusTable(json: string | null): string {
  return formatStatusTable(councilStatusTable(json));
}

/** The default status table, in the same notation (for the form's hint and the docs). */
export const DEFAULT_STATUS_TABLE_TEXT = formatStatusTable({ ...DEFAULT_COUNCIL_STATUSES });

/** Sets a department's delivery method. Audited without the key. */
export async function setDepartmentDelivery(
  db: Kysely<DB>,
  config: Config,
  departmentId: number,
  input: DeliveryInput,
  by: { accountId: string | null; at: Date },
): Promise<void> {
  const department = await db.selectFrom("departments").selectAll().where("id", "=", departmentId).executeTakeFirst();
  if (!department) throw new AppError("not_found", "There is no department with this id.");
  const changes: Record<string, string | null> = { delivery: input.method };
  if (input.method === "open311") {
    const endpoint = (input.endpoint ?? department.open311_endpoint ?? "").trim();
    let url: URL | null;
    try {
      url = new URL(endpoint);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) {
      fail("endpoint", "Enter the endpoint's base URL, like https://council.example.org/open311/v2/.");
    }
    if (endpoint.length > 500) fail("endpoint", "The URL is too long.");
    changes.open311_endpoint = endpoint;
    if (input.apiKey !== undefined) {
      const key = input.apiKey.trim();
      if (key && !config.forwarding.secret) {
        fail(
          "api_key",
          "Set FORWARDING_SECRET (or SESSION_SECRET) in the environment first: the key is stored sealed with it.",
        );
      }
      if (key.length > 500) fail("api_key", "The key is too long.");
      changes.open311_key_sealed = key ? seal(config.forwarding.secret as string, COUNCIL_KEY_PURPOSE, key) : null;
    }
    if (input.jurisdiction !== undefined) {
      const j = input.jurisdiction.trim();
      if (j.length > 200) fail("jurisdiction", "The jurisdiction_id is too long.");
      changes.open311_jurisdiction = j || null;
    }
    const services = checkMapping("services", input.services);
    if (services !== undefined) changes.open311_services = services;
    const attributes = checkMapping("attributes", input.attributes);
    if (attributes !== undefined) changes.open311_attributes = attributes;
    if (input.statuses !== undefined) {
      // Checked again here, whoever built the table (the CLI and the form parse text with parseStatusTable).
      changes.open311_statuses = JSON.stringify(parseStatusTable(formatStatusTable(input.statuses)));
    }
  }
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable("departments")
      .set({ ...changes, updated_at: by.at.toISOString() })
      .where("id", "=", departmentId)
      .execute();
    const { open311_key_sealed: key, ...shown } = changes;
    await recordAudit(tx, {
      actorId: by.accountId,
      action: "department.delivery",
      itemType: "department",
      itemId: departmentId,
      details: { ...shown, ...(key !== undefined ? { api_key: key ? "changed" : "removed" } : {}) },
      at: by.at,
    });
  });
}

function storedMapping(json: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** A department's delivery settings as the admin form shows them: never the key, only whether one is stored. */
export interface DeliverySettings {
  method: "email" | "open311";
  endpoint: string;
  hasKey: boolean;
  jurisdiction: string;
  services: Record<string, string>;
  attributes: Record<string, string>;
  /** The department's own status table (the council's status words → ours), over the default one. */
  statuses: string;
  /** Our categories (active or retired) forwarded to this department. */
  categories: { code: string; name: string }[];
}

export async function deliverySettings(db: Kysely<DB>, departmentId: number): Promise<DeliverySettings> {
  const department = await db.selectFrom("departments").selectAll().where("id", "=", departmentId).executeTakeFirst();
  if (!department) throw new AppError("not_found", "There is no department with this id.");
  const categories = await db
    .selectFrom("categories")
    .select(["code", "name"])
    .where("department_id", "=", departmentId)
    .orderBy("name")
    .limit(500)
    .execute();
  return {
    method: department.delivery === "open311" ? "open311" : "email",
    endpoint: department.open311_endpoint ?? "",
    hasKey: department.open311_key_sealed !== null,
    jurisdiction: department.open311_jurisdiction ?? "",
    services: storedMapping(department.open311_services),
    attributes: storedMapping(department.open311_attributes),
    statuses: formatStatusTable(department.open311_statuses ?? "{}"),
    categories,
  };
}

export interface ConnectionCheck {
  ok: boolean;
  /** Why the services could not be read (plain text; escape it where shown). */
  error: string | null;
  services: CouncilService[];
  /** Each of our categories forwarded to this department, with the service code it maps to and whether the council offers it. */
  categories: { code: string; name: string; serviceCode: string | null; offered: boolean }[];
  /** The council's services that none of our categories maps to. */
  unmappedServices: CouncilService[];
  /** Required questions of the mapped services that no answer of ours is mapped to. */
  unmappedAttributes: { service: string; code: string; description: string }[];
  /** Services whose questions could not be read, with why (plain text). */
  definitionErrors: { service: string; error: string }[];
}

/** At most this many service definitions are fetched by one check. */
const MAX_DEFINITIONS = 20;

/**
 * Fetches the council's services.json (bounded) and, for the mapped services that ask questions, their definitions,
 * and shows what maps and what does not.
 */
export async function checkDepartmentConnection(
  db: Kysely<DB>,
  config: Config,
  departmentId: number,
): Promise<ConnectionCheck> {
  const department = await db.selectFrom("departments").selectAll().where("id", "=", departmentId).executeTakeFirst();
  if (!department) throw new AppError("not_found", "There is no department with this id.");
  let services: CouncilService[] = [];
  let error: string | null = null;
  try {
    services = await fetchServices(config, department);
  } catch (e) {
    error = e instanceof OutboundError ? e.message : "the services could not be read";
  }
  const mapping = storedMapping(department.open311_services);
  const answers = storedMapping(department.open311_attributes);
  const offered = new Set(services.map((s) => s.code));
  const categories = (
    await db
      .selectFrom("categories")
      .select(["code", "name"])
      .where("department_id", "=", departmentId)
      .orderBy("code")
      .execute()
  ).map((c) => {
    const serviceCode = mapping[c.code] ?? null;
    return { code: c.code, name: c.name, serviceCode, offered: serviceCode !== null && offered.has(serviceCode) };
  });
  const used = new Set(categories.map((c) => c.serviceCode));
  const unmappedAttributes: ConnectionCheck["unmappedAttributes"] = [];
  const definitionErrors: ConnectionCheck["definitionErrors"] = [];
  const asking = services.filter((s) => s.metadata && used.has(s.code)).slice(0, MAX_DEFINITIONS);
  for (const service of asking) {
    try {
      for (const a of await fetchServiceDefinition(config, department, service.code)) {
        if (a.required && answers[a.code] === undefined) {
          unmappedAttributes.push({ service: service.code, code: a.code, description: a.description });
        }
      }
    } catch (e) {
      const why = e instanceof OutboundError ? e.message : "the definition could not be read";
      definitionErrors.push({ service: service.code, error: why });
    }
  }
  return {
    ok: error === null,
    error,
    services,
    categories,
    unmappedServices: services.filter((s) => !used.has(s.code)),
    unmappedAttributes,
    definitionErrors,
  };
}
