import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB, ReportForwardingsTable } from "../core/db/schema.js";
import type { Job } from "../core/jobs/runner.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { publicPhoto } from "../core/visibility.js";
import { type AttributeValues, categoryAttributes } from "./attributes.js";
import { councilKey, jurisdictionQuery, postRequest } from "./council-client.js";
import { forwardMail, type ReportMailFacts } from "./emails.js";
import { reportPhotoUrl } from "./photos.js";
import { shownMediaUrl } from "./media-url.js";
import { describePlace, loadGazetteer } from "./place-words.js";

/**
 * The one forwarding path (issue 37). Every forwarding of a report (a new report, a category change, "forward
 * again") calls forwardReport inside the transaction of the action that forwards; it writes one report_forwardings
 * row for the department of the report's current category, by that department's delivery method:
 *
 * - email: the mail (built from what is stored now) goes into the outbox in the same transaction, and the outbox
 *   worker (core/mail/worker.ts) is its job: leases, retries, backoff. The row is "sent" (queued) at once.
 * - Open311: the row is the job ("pending"); the forwarding job (forwardingJob) claims due rows one by one with a
 *   lease (a compare-and-set on locked_until, so of several processes one sends), posts the report to the council
 *   with an Idempotency-Key that is the same on every attempt of the same content (forwardingKey), and keeps the
 *   council's service_request_id or token, or the error and the next attempt (backoff), or "failed" (refused, or
 *   too many attempts) for staff to see and resend.
 *
 * Bringing the council's answers back (council-poll.ts) reads the rows' service_request_id and token and keeps
 * each row's last sync (when, how it went, the council's last status).
 */

export type Forwarding = Pick<ReportForwardingsTable, "department_name" | "method" | "state">;

function storedAttributes(json: string): AttributeValues {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as AttributeValues) : {};
  } catch {
    return {};
  }
}

function mapping(json: string): Record<string, string> {
  const value = storedAttributes(json);
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/**
 * The Idempotency-Key of every attempt to send this report to this department. It names what is sent (a digest of
 * the request's fields, the API key left out): the retries of one sending and a "forward again" of an unchanged
 * report carry the same key, so the council answers with the same request; a "forward again" after the report was
 * edited carries a new one, so a council that honours the key takes it as a new request instead of refusing a
 * known key with other content (422).
 */
export function forwardingKey(reference: string, departmentId: number | null, fields: [string, string][] = []): string {
  const sent = fields.filter(([name]) => name !== "api_key");
  const digest = createHash("sha256").update(JSON.stringify(sent)).digest("hex").slice(0, 16);
  return `civic-forward-${reference}-${departmentId ?? "none"}-${digest}`;
}

async function reportFacts(tx: Kysely<DB>, reportId: number) {
  return tx
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("departments", "departments.id", "categories.department_id")
    .leftJoin("places", "places.id", "reports.place_id")
    .select([
      "reports.reference",
      "reports.title",
      "reports.description",
      "reports.latitude",
      "reports.longitude",
      "reports.location_text",
      "reports.attributes",
      "reports.media_url",
      "reports.share_contact",
      "reports.reporter_name",
      "reports.reporter_email",
      "reports.reporter_phone",
      "reports.category_code",
      "categories.name as category_name",
      "categories.attributes as category_attributes",
      "categories.department_email",
      "categories.department_name",
      "departments.id as department_id",
      "departments.delivery",
      "departments.open311_endpoint",
      "departments.open311_key_sealed",
      "departments.open311_jurisdiction",
      "departments.open311_services",
      "departments.open311_attributes",
      "places.name as place_name",
    ])
    .where("reports.id", "=", reportId)
    .executeTakeFirstOrThrow();
}

async function publicPhotoUrls(tx: Kysely<DB>, baseUrl: string, reportId: number): Promise<string[]> {
  const photos = await tx
    .selectFrom("report_photos")
    .select("hash")
    .where("report_id", "=", reportId)
    .where(publicPhoto)
    .orderBy("position")
    .execute();
  return photos.map((p) => reportPhotoUrl(baseUrl, p.hash, "full"));
}

/**
 * Forwards a stored report to the department of its current category by the department's delivery method (see the
 * module comment). Call it inside the transaction of the action that forwards. Returns what was written, or null
 * when the category has no department.
 */
export async function forwardReport(
  civic: Civic,
  tx: Kysely<DB>,
  reportId: number,
  now: Date,
): Promise<Forwarding | null> {
  const r = await reportFacts(tx, reportId);
  const at = now.toISOString();
  const departmentName = r.department_name ?? "the council";
  if (r.delivery === "open311") {
    const serviceCode = mapping(r.open311_services ?? "{}")[r.category_code] ?? null;
    const refused = !r.open311_endpoint
      ? "The department has no Open311 endpoint."
      : !serviceCode
        ? `The category ${r.category_code} has no council service code in the department's mapping.`
        : null;
    const sent = serviceCode ? (await requestFields(civic, reportId, serviceCode, null, tx)).fields : [];
    const key = forwardingKey(r.reference, r.department_id, sent);
    const row = {
      report_id: reportId,
      department_id: r.department_id,
      department_name: departmentName,
      method: "open311",
      destination: r.open311_endpoint ?? "",
      service_code: serviceCode,
      idempotency_key: key,
      state: refused ? "failed" : "pending",
      next_attempt_at: at,
      last_error: refused,
      created_at: at,
      failed_at: refused ? at : null,
    } as const;
    await tx.insertInto("report_forwardings").values(row).execute();
    return { department_name: departmentName, method: "open311", state: row.state };
  }

  if (!r.department_email) return null;
  const { baseUrl } = civic.config;
  const place = { placeName: r.place_name, locationText: r.location_text, lat: r.latitude, lng: r.longitude };
  const gazetteer = await loadGazetteer(tx);
  const facts: ReportMailFacts = {
    reference: r.reference,
    title: r.title,
    description: r.description,
    categoryName: r.category_name,
    where: describePlace(place, gazetteer) ?? "Not given",
    whereInOurWords: describePlace(place, gazetteer, { reporterText: false }),
    lat: r.latitude,
    lng: r.longitude,
    link: `${baseUrl}/reports/${r.reference}`,
    baseUrl,
    villageName: civic.config.village.name,
    councilName: civic.config.village.councilName,
    contactEmail: civic.config.village.contactEmail,
    domain: new URL(baseUrl).hostname,
  };
  const contact =
    r.share_contact === 1 ? { name: r.reporter_name, email: r.reporter_email, phone: r.reporter_phone } : null;
  await enqueueMail(
    tx,
    forwardMail(
      r.department_email,
      facts,
      {
        definitions: categoryAttributes({ attributes: r.category_attributes }),
        values: storedAttributes(r.attributes),
      },
      await publicPhotoUrls(tx, baseUrl, reportId),
      shownMediaUrl(r.media_url, baseUrl),
      contact,
    ),
    now,
  );
  await tx
    .insertInto("report_forwardings")
    .values({
      report_id: reportId,
      department_id: r.department_id,
      department_name: departmentName,
      method: "email",
      destination: r.department_email,
      service_code: null,
      idempotency_key: forwardingKey(r.reference, r.department_id),
      state: "sent",
      next_attempt_at: at,
      created_at: at,
      sent_at: at,
    })
    .execute();
  await tx
    .updateTable("reports")
    .set({ forwarded_at: at, forwarded_to: r.department_email })
    .where("id", "=", reportId)
    .execute();
  return { department_name: departmentName, method: "email", state: "sent" };
}

// --- The Open311 sender ------------------------------------------------------------------------------------------

/** Delay before the next attempt after `attempts` failures: 30 s, 1 min, 2 min, … capped at 1 hour. */
export function forwardingRetryMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(attempts - 1, 0), 60 * 60 * 1000);
}
/** A forwarding still failing after this many attempts is marked failed (staff can resend it). */
export const MAX_FORWARDING_ATTEMPTS = 20;
/** How long a process holds a forwarding it is sending. */
const LOCK_MS = 2 * 60_000;

const iso = (d: Date, plusMs = 0) => new Date(d.getTime() + plusMs).toISOString();

/** Claims a due Open311 forwarding: of several processes exactly one wins it until its lease ends. */
async function claimForwarding(db: Kysely<DB>, id: number, now: Date) {
  const at = iso(now);
  const result = await db
    .updateTable("report_forwardings")
    .set((eb) => ({ locked_until: iso(now, LOCK_MS), attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .where("state", "=", "pending")
    .where("next_attempt_at", "<=", at)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", at)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  return db.selectFrom("report_forwardings").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** The form fields of the POST to the council (GeoReport v2 requests.json). */
async function requestFields(
  civic: Civic,
  reportId: number,
  serviceCode: string,
  key: string | null,
  db: Kysely<DB> = civic.database.db,
) {
  const r = await reportFacts(db, reportId);
  const { baseUrl } = civic.config;
  const gazetteer = await loadGazetteer(db);
  const place = { placeName: r.place_name, locationText: r.location_text, lat: r.latitude, lng: r.longitude };
  const photos = await publicPhotoUrls(db, baseUrl, reportId);
  const media = [...photos, shownMediaUrl(r.media_url, baseUrl)].filter((u): u is string => u !== null);
  const link = `${baseUrl}/reports/${r.reference}`;
  const description = [
    r.title,
    r.description,
    media.length > 1 ? `Photos: ${media.join(" ")}` : null,
    `Reference ${r.reference}: ${link}`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const fields: [string, string][] = [];
  if (key) fields.push(["api_key", key]);
  fields.push(...Object.entries(jurisdictionQuery(r)));
  fields.push(["service_code", serviceCode]);
  if (r.latitude !== null && r.longitude !== null) {
    fields.push(["lat", String(r.latitude)], ["long", String(r.longitude)]);
  }
  const where = describePlace(place, gazetteer);
  if (where) fields.push(["address_string", where]);
  fields.push(["description", description]);
  if (media[0]) fields.push(["media_url", media[0]]);
  const answers = storedAttributes(r.attributes);
  for (const [theirs, ours] of Object.entries(mapping(r.open311_attributes ?? "{}"))) {
    const answer = answers[ours];
    if (answer === undefined) continue;
    for (const value of Array.isArray(answer) ? answer : [answer]) {
      fields.push([Array.isArray(answer) ? `attribute[${theirs}][]` : `attribute[${theirs}]`, value]);
    }
  }
  if (r.share_contact === 1) {
    const [first, ...rest] = (r.reporter_name ?? "").trim().split(/\s+/);
    if (first) fields.push(["first_name", first]);
    if (rest.length > 0) fields.push(["last_name", rest.join(" ")]);
    if (r.reporter_email) fields.push(["email", r.reporter_email]);
    if (r.reporter_phone) fields.push(["phone", r.reporter_phone]);
  }
  return { fields, endpoint: r, reference: r.reference };
}

/** Sends one claimed forwarding and records the outcome. Returns "sent", "retry" or "failed". */
async function sendClaimed(
  civic: Civic,
  row: { id: number; report_id: number; service_code: string | null; idempotency_key: string; attempts: number },
): Promise<"sent" | "retry" | "failed"> {
  const db = civic.database.db;
  const department = await db
    .selectFrom("report_forwardings")
    .innerJoin("reports", "reports.id", "report_forwardings.report_id")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("departments", "departments.id", "categories.department_id")
    .select(["departments.open311_endpoint", "departments.open311_key_sealed", "departments.open311_jurisdiction"])
    .where("report_forwardings.id", "=", row.id)
    .executeTakeFirst();
  const key = department ? councilKey(civic.config, department) : null;
  const { fields } = await requestFields(civic, row.report_id, row.service_code ?? "", key);
  const outcome = department?.open311_endpoint
    ? await postRequest(civic.config, department, fields, row.idempotency_key)
    : ({ ok: false, retry: false, error: "The department has no Open311 endpoint any more." } as const);
  const now = civic.now();
  const at = iso(now);
  if (outcome.ok) {
    await db.transaction().execute(async (tx) => {
      await tx
        .updateTable("report_forwardings")
        .set({
          state: "sent",
          sent_at: at,
          locked_until: null,
          last_error: null,
          service_request_id: outcome.serviceRequestId,
          token: outcome.token,
        })
        .where("id", "=", row.id)
        .where("state", "=", "pending")
        .execute();
      const destination = department?.open311_endpoint ?? "";
      await tx
        .updateTable("reports")
        .set({ forwarded_at: at, forwarded_to: destination })
        .where("id", "=", row.report_id)
        .execute();
    });
    return "sent";
  }
  const final = !outcome.retry || row.attempts >= MAX_FORWARDING_ATTEMPTS;
  await db
    .updateTable("report_forwardings")
    .set({
      last_error: outcome.error,
      locked_until: null,
      ...(final ? { state: "failed", failed_at: at } : { next_attempt_at: iso(now, forwardingRetryMs(row.attempts)) }),
    })
    .where("id", "=", row.id)
    .where("state", "=", "pending")
    .execute();
  return final ? "failed" : "retry";
}

/**
 * Sends the Open311 forwardings that are due, one at a time, each claimed first. A council that does not answer
 * costs at most one bounded request per round: its other forwardings wait for the next round, and other councils'
 * go on. Returns counts for the log (no endpoint, key or report text).
 */
export async function sendDueForwardings(
  civic: Civic,
  options: { signal?: AbortSignal; limit?: number } = {},
): Promise<{ sent: number; retry: number; failed: number }> {
  const db = civic.database.db;
  const figures = { sent: 0, retry: 0, failed: 0 };
  const due = await db
    .selectFrom("report_forwardings")
    .select(["id", "destination"])
    .where("state", "=", "pending")
    .where("next_attempt_at", "<=", iso(civic.now()))
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", iso(civic.now()))]))
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(options.limit ?? 50)
    .execute();
  const down = new Set<string>();
  for (const { id, destination } of due) {
    if (options.signal?.aborted) break;
    if (down.has(destination)) continue;
    const row = await claimForwarding(db, id, civic.now());
    if (!row) continue;
    const result = await sendClaimed(civic, row);
    figures[result]++;
    if (result === "retry") down.add(destination);
  }
  return figures;
}

/** The periodic job that sends Open311 forwardings (FORWARDING_INTERVAL_SECONDS). */
export function forwardingJob(civic: Civic): Job {
  return {
    name: "open311-forwarding",
    intervalMs: civic.config.forwarding.intervalMs,
    leaseMs: 5 * 60_000,
    run: ({ signal }) => sendDueForwardings(civic, { signal }),
  };
}

/** Where a report went, newest first, for the staff view (all) and the public page (sent ones). */
export async function reportForwardings(db: Kysely<DB>, reference: string) {
  return db
    .selectFrom("report_forwardings")
    .innerJoin("reports", "reports.id", "report_forwardings.report_id")
    .select([
      "report_forwardings.id",
      "report_forwardings.department_name",
      "report_forwardings.method",
      "report_forwardings.state",
      "report_forwardings.service_request_id",
      "report_forwardings.token",
      "report_forwardings.last_error",
      "report_forwardings.attempts",
      "report_forwardings.created_at",
      "report_forwardings.sent_at",
      "report_forwardings.failed_at",
      "report_forwardings.next_attempt_at",
      "report_forwardings.council_status",
      "report_forwardings.synced_at",
      "report_forwardings.sync_error",
    ])
    .where("reports.reference", "=", reference)
    .orderBy("report_forwardings.id", "desc")
    .limit(20)
    .execute();
}
export type ForwardingRow = Awaited<ReturnType<typeof reportForwardings>>[number];

const METHOD_WORDS = { email: "by email", open311: "by Open311" } as const;

/** How a forwarding went, in words: method, council reference, state. */
export function forwardingWords(f: ForwardingRow): string {
  const ref = f.service_request_id
    ? `, council reference ${f.service_request_id}`
    : f.token
      ? `, council token ${f.token} (reference to come)`
      : "";
  return `${f.department_name}, ${METHOD_WORDS[f.method]}${ref}`;
}

/**
 * The last sync with the council in words, without its time: the council's last status as it wrote it, or that the
 * last try got no answer about the report (staff also read why). null for email, and before the first sync.
 */
export function syncWords(f: ForwardingRow, staff = false): string | null {
  if (f.method !== "open311" || !f.synced_at) return null;
  const status = f.council_status ? `the council's status “${f.council_status.replace(/_/g, " ")}”` : null;
  if (f.sync_error) {
    const failed = staff ? `no answer about this report (${f.sync_error})` : "no answer about this report";
    return status ? `${failed}; last known, ${status}` : failed;
  }
  return status ?? "the council gave no status yet";
}
