import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import type { Civic } from "../core/context.js";
import type { DepartmentsTable, ReportStatus } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import { OutboundError } from "../core/http/outbound.js";
import type { Job, JobContext } from "../core/jobs/runner.js";
import { type CouncilRequest, councilKey, fetchRequests, jurisdictionQuery, resolveToken } from "./council-client.js";
import { type ReportEvent, recordReportEvent } from "./events.js";
import { canTransition, isReportStatus, open311Status } from "./model.js";

/**
 * Bringing the councils' answers back (issue 37). A leased job (`open311-poll`, every OPEN311_POLL_SECONDS) asks each
 * Open311 department about the reports forwarded to it:
 *
 * - tokens not yet resolved: GET {base}/tokens/{token}.json, keeping the service_request_id;
 * - GET {base}/requests.json?service_request_id=a,b,… in batches of 50, with jurisdiction_id and api_key when set,
 *   sending If-None-Match with the entity tag of the same query's last answer (a 304 costs nothing else). The
 *   standard's start_date/end_date select requests by when they were made, not by when they changed (and a
 *   service_request_id list overrides them), so they cannot find changes: the id lists are always used, and the
 *   last answer's time is kept per department and query (council_polls).
 * - Each request the council lists that changed since it was last seen (status, updated_datetime or notes) is
 *   mapped through the department's status table (its own pairs over DEFAULT_COUNCIL_STATUSES) and recorded
 *   through the one path (recordReportEvent) as the council's, keyed by report, department, service_request_id and
 *   what the council said: polled twice, or by two instances, it is recorded once. A status our transition table
 *   allows becomes a status change with the council's notes; a status that is unknown, mapped to `ignore`, not
 *   allowed from the report's status, or no change (the council's `open` while the report is being dealt with here)
 *   records only the notes, as a public update, when the council wrote new ones; otherwise nothing. Unknown and
 *   refused statuses are logged (department id and status word, never the key or the URL).
 * - A request the council returns that was not asked for is ignored. A council that fails (down, slow, huge,
 *   invalid, redirecting) has the failure recorded on its forwardings (their last sync) and the job goes on to the
 *   next department: one bounded request per department per round at most fails.
 */

/** The council status words (Open311's open/closed and FixMyStreet's extended ones) and ours, when none are set. */
export const DEFAULT_COUNCIL_STATUSES: Readonly<Record<string, CouncilStatusTarget>> = {
  open: "open",
  confirmed: "open",
  reopened: "open",
  investigating: "investigating",
  in_progress: "in_progress",
  action_scheduled: "action_scheduled",
  closed: "fixed",
  fixed: "fixed",
  duplicate: "closed",
  not_councils_responsibility: "not_responsible",
  not_responsible: "not_responsible",
  no_further_action: "closed",
  unable_to_fix: "closed",
  internal_referral: "closed",
};

/** What a council status becomes: one of our statuses (not "duplicate": the council names no original), or `ignore`. */
export type CouncilStatusTarget = Exclude<ReportStatus, "duplicate"> | "ignore";

export function isCouncilStatusTarget(value: string): value is CouncilStatusTarget {
  return value === "ignore" || (isReportStatus(value) && value !== "duplicate");
}

/** The department's table (its JSON column) over the default one. Broken or foreign entries are left out. */
export function councilStatusTable(json: string | null): Record<string, CouncilStatusTarget> {
  const table: Record<string, CouncilStatusTarget> = { ...DEFAULT_COUNCIL_STATUSES };
  try {
    const own: unknown = JSON.parse(json ?? "{}");
    if (own && typeof own === "object" && !Array.isArray(own)) {
      for (const [k, v] of Object.entries(own as Record<string, unknown>)) {
        if (typeof v === "string" && isCouncilStatusTarget(v)) table[k] = v;
      }
    }
  } catch {
    // a broken column: the default table
  }
  return table;
}

const BATCH = 50;
const TOKENS_PER_ROUND = 20;
/** At most this many service_request_ids per department per round (20 requests); more are taken in turns. */
const IDS_PER_ROUND = 1000;

/**
 * The ids asked about this round, in a stable order so each batch is the same query as last time (and its entity
 * tag still applies). Beyond IDS_PER_ROUND, the ones synced longest ago go first (never synced before all).
 */
function idsThisRound(watched: Watched[]): string[] {
  const last = new Map<string, string>();
  for (const w of watched) {
    if (w.service_request_id === null) continue;
    const at = w.synced_at ?? "";
    const seen = last.get(w.service_request_id);
    if (seen === undefined || at < seen) last.set(w.service_request_id, at);
  }
  let ids = [...last.keys()];
  if (ids.length > IDS_PER_ROUND) {
    ids = ids.sort((a, b) => ((last.get(a) ?? "") < (last.get(b) ?? "") ? -1 : 1)).slice(0, IDS_PER_ROUND);
  }
  const order = new Map(watched.map((w, i) => [w.service_request_id, i] as const));
  return ids.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}
const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

interface Watched {
  id: number;
  report_id: number;
  service_request_id: string | null;
  token: string | null;
  council_status: string | null;
  council_updated_at: string | null;
  council_notes_hash: string | null;
  synced_at: string | null;
}

export interface PollFigures {
  departments: number;
  asked: number;
  unchanged: number;
  updates: number;
  ignored: number;
  failed: number;
  [k: string]: number;
}

type Log = JobContext["log"];

/** Polls every Open311 department with forwarded reports once (see the module comment). Never throws for a council. */
export async function pollCouncils(
  civic: Civic,
  options: { signal?: AbortSignal; log?: Log } = {},
): Promise<PollFigures> {
  const db = civic.database.db;
  const figures: PollFigures = { departments: 0, asked: 0, unchanged: 0, updates: 0, ignored: 0, failed: 0 };
  const departments = await db
    .selectFrom("departments")
    .selectAll()
    .where("delivery", "=", "open311")
    .where("open311_endpoint", "is not", null)
    .orderBy("id")
    .execute();
  for (const department of departments) {
    if (options.signal?.aborted) break;
    const watched: Watched[] = await db
      .selectFrom("report_forwardings")
      .select([
        "id",
        "report_id",
        "service_request_id",
        "token",
        "council_status",
        "council_updated_at",
        "council_notes_hash",
        "synced_at",
      ])
      .where("department_id", "=", department.id)
      .where("method", "=", "open311")
      .where("state", "=", "sent")
      .where((eb) => eb.or([eb("service_request_id", "is not", null), eb("token", "is not", null)]))
      .orderBy("id")
      .execute();
    if (watched.length === 0) continue;
    figures.departments++;
    // The ids not asked about yet this round: when the council fails, their forwardings record the failure.
    let waiting: string[] | null = null;
    try {
      const key = councilKey(civic.config, department);
      const base = jurisdictionQuery(department);
      const withKey = key ? { ...base, api_key: key } : base;
      await resolveTokens(civic, department, watched, withKey, options.log);
      const table = councilStatusTable(department.open311_statuses);
      const ids = idsThisRound(watched);
      const keys: string[] = [];
      for (let i = 0; i < ids.length; i += BATCH) {
        if (options.signal?.aborted) break;
        waiting = ids.slice(i);
        const batch = ids.slice(i, i + BATCH);
        const query = { ...base, service_request_id: batch.join(",") };
        const sent = { ...query, ...withKey };
        keys.push(await pollBatch(civic, department, table, batch, query, sent, watched, figures, options.log));
      }
      waiting = null;
      // Entity tags of queries no longer asked (their batches changed) are dropped.
      if (!options.signal?.aborted) {
        await db
          .deleteFrom("council_polls")
          .where("department_id", "=", department.id)
          .where("query_key", "not in", keys.length > 0 ? keys : [""])
          .execute();
      }
    } catch (error) {
      // One failure per department per round: the rest of its batches wait for the next round.
      figures.failed++;
      if (!(error instanceof OutboundError)) {
        // Not the council's answer: our side failed (the database); logged as an error, tried again next round.
        options.log?.error({ department: department.id, err: error }, "open311 poll: recording the answer failed");
      }
      const message = error instanceof OutboundError ? error.message : "the council's answer could not be recorded";
      // The message names the host at most, never the query (the key travels in it).
      options.log?.warn({ department: department.id, error: message }, "open311 poll: the council failed");
      const failed = waiting ? new Set(waiting) : null;
      const rows = watched.filter(
        (w) => !failed || (w.service_request_id !== null && failed.has(w.service_request_id)),
      );
      if (rows.length > 0) {
        await db
          .updateTable("report_forwardings")
          .set({ synced_at: civic.now().toISOString(), sync_error: message })
          .where(
            "id",
            "in",
            rows.map((w) => w.id),
          )
          .execute();
      }
    }
  }
  return figures;
}

type Department = Selectable<DepartmentsTable>;

/**
 * Resolves tokens the council gave instead of an id (GET tokens/{token}.json). A token the council cannot resolve
 * yet waits for the next round; a failing tokens endpoint is recorded on those forwardings only.
 */
async function resolveTokens(
  civic: Civic,
  department: Department,
  watched: Watched[],
  query: Record<string, string>,
  log: Log,
) {
  const db = civic.database.db;
  const tokens = [...new Set(watched.filter((w) => !w.service_request_id && w.token).map((w) => w.token as string))];
  for (const token of tokens.slice(0, TOKENS_PER_ROUND)) {
    const rows = watched.filter((w) => w.token === token && !w.service_request_id).map((w) => w.id);
    let id: string | null;
    try {
      id = await resolveToken(civic.config, department, token, query);
    } catch (error) {
      const message = error instanceof OutboundError ? error.message : "the token could not be resolved";
      log?.warn({ department: department.id, error: message }, "open311 poll: a token could not be resolved");
      await db
        .updateTable("report_forwardings")
        .set({ synced_at: civic.now().toISOString(), sync_error: message })
        .where("id", "in", rows)
        .execute();
      continue;
    }
    if (!id) continue;
    await db
      .updateTable("report_forwardings")
      .set({ service_request_id: id })
      .where("id", "in", rows)
      .where("service_request_id", "is", null)
      .execute();
    for (const w of watched) if (w.token === token && !w.service_request_id) w.service_request_id = id;
  }
}

async function pollBatch(
  civic: Civic,
  department: Department,
  table: Record<string, CouncilStatusTarget>,
  batch: string[],
  query: Record<string, string>,
  sent: Record<string, string>,
  watched: Watched[],
  figures: PollFigures,
  log: Log,
): Promise<string> {
  const db = civic.database.db;
  const queryKey = hash(`${department.open311_endpoint ?? ""}?${new URLSearchParams(query).toString()}`);
  const kept = await db
    .selectFrom("council_polls")
    .select(["id", "etag"])
    .where("department_id", "=", department.id)
    .where("query_key", "=", queryKey)
    .executeTakeFirst();
  figures.asked++;
  const answer = await fetchRequests(civic.config, department, sent, kept?.etag ?? null);
  const at = civic.now().toISOString();
  const rows = watched.filter((w) => w.service_request_id !== null && batch.includes(w.service_request_id));
  const listed = new Set<string>();
  if (!answer.modified) {
    figures.unchanged++;
    for (const id of batch) listed.add(id);
    // A forwarding added since the last answer (forward again: the same request) takes what its twin last heard.
    for (const fresh of rows.filter((w) => w.council_status === null)) {
      const twin = rows.find((w) => w.service_request_id === fresh.service_request_id && w.council_status !== null);
      if (!twin) continue;
      await db
        .updateTable("report_forwardings")
        .set({
          council_status: twin.council_status,
          council_updated_at: twin.council_updated_at,
          council_notes_hash: twin.council_notes_hash,
        })
        .where("id", "=", fresh.id)
        .execute();
    }
  } else {
    const asked = new Set(batch);
    for (const request of answer.requests) {
      // Only what we asked about: anything else the council sends is ignored.
      if (!asked.has(request.serviceRequestId) || listed.has(request.serviceRequestId)) {
        figures.ignored++;
        continue;
      }
      listed.add(request.serviceRequestId);
      const mine = rows.filter((w) => w.service_request_id === request.serviceRequestId);
      figures.updates += await applyCouncilRequest(civic, department.id, table, request, mine, log);
    }
  }
  const ok = rows.filter((w) => listed.has(w.service_request_id as string)).map((w) => w.id);
  const missing = rows.filter((w) => !listed.has(w.service_request_id as string)).map((w) => w.id);
  if (ok.length > 0) {
    await db.updateTable("report_forwardings").set({ synced_at: at, sync_error: null }).where("id", "in", ok).execute();
  }
  if (missing.length > 0) {
    await db
      .updateTable("report_forwardings")
      .set({ synced_at: at, sync_error: "The council's answer did not list this request." })
      .where("id", "in", missing)
      .execute();
  }
  const etag = answer.modified ? answer.etag : (kept?.etag ?? null);
  if (kept) {
    await db
      .updateTable("council_polls")
      .set({ etag, polled_at: at, answered_at: at })
      .where("id", "=", kept.id)
      .execute();
  } else {
    await db
      .insertInto("council_polls")
      .values({ department_id: department.id, query_key: queryKey, etag, polled_at: at, answered_at: at })
      .onConflict((oc) =>
        oc.columns(["department_id", "query_key"]).doUpdateSet({ etag, polled_at: at, answered_at: at }),
      )
      .execute();
  }
  return queryKey;
}

/** Records what the council says about one request on each report forwarded as it. Returns the events recorded. */
async function applyCouncilRequest(
  civic: Civic,
  departmentId: number,
  table: Record<string, CouncilStatusTarget>,
  request: CouncilRequest,
  rows: Watched[],
  log: Log,
): Promise<number> {
  const db = civic.database.db;
  const notesHash = request.notes ? hash(request.notes) : null;
  let recorded = 0;
  for (const reportId of new Set(rows.map((r) => r.report_id))) {
    const mine = rows.filter((r) => r.report_id === reportId);
    // What the council last said, as heard by any forwarding of this report as this request (forward again adds one).
    const seen = mine.find((r) => r.council_status !== null) ?? (mine[0] as Watched);
    const same = mine.every(
      (r) =>
        r.council_status === request.status &&
        r.council_updated_at === request.updatedAt &&
        r.council_notes_hash === notesHash,
    );
    if (same) continue;
    const report = await db.selectFrom("reports").select("status").where("id", "=", reportId).executeTakeFirst();
    if (!report) continue;
    const newNotes = request.notes !== null && notesHash !== seen.council_notes_hash ? request.notes : null;
    const event = councilEvent(report.status, table[request.status], newNotes);
    if (event.refused) {
      log?.info(
        { department: departmentId, status: request.status, ours: report.status, reason: event.refused },
        "open311 poll: the council's status is not applied",
      );
    }
    if (event.event) {
      const key = `council:${reportId}:${departmentId}:${hash(
        [request.serviceRequestId, request.updatedAt ?? "", request.status, notesHash ?? ""].join("\n"),
      )}`;
      try {
        const done = await recordReportEvent(
          db,
          { civic, now: civic.now(), by: "council", accountId: null, key },
          reportId,
          event.event,
        );
        if (done.created) recorded++;
      } catch (error) {
        // The report changed meanwhile (a racing status change): tried again at the next round.
        if (error instanceof AppError) continue;
        throw error;
      }
    }
    await db
      .updateTable("report_forwardings")
      .set({ council_status: request.status, council_updated_at: request.updatedAt, council_notes_hash: notesHash })
      .where("report_id", "=", reportId)
      .where("department_id", "=", departmentId)
      .where("service_request_id", "=", request.serviceRequestId)
      .execute();
  }
  return recorded;
}

/**
 * What the council's status (mapped: `target`, undefined when the table does not know it) and new notes become on
 * a report that is `ours`: a status change, a public update with the notes only, or nothing; `refused` says why a
 * status was not applied (for the log).
 */
export function councilEvent(
  ours: ReportStatus,
  target: CouncilStatusTarget | undefined,
  notes: string | null,
): { event: ReportEvent | null; refused: string | null } {
  const notesOnly = notes ? ({ kind: "update", note: notes } as const) : null;
  if (target === undefined) return { event: notesOnly, refused: "unknown status" };
  if (target === "ignore" || target === ours) return { event: notesOnly, refused: null };
  // The council's "open" says the request is not finished: so is a report being dealt with here.
  if (target === "open" && open311Status(ours) === "open") return { event: notesOnly, refused: null };
  if (!canTransition(ours, target)) return { event: notesOnly, refused: "not allowed from the report's status" };
  return { event: { kind: "status", to: target, note: notes ?? "" }, refused: null };
}

/** The periodic job that brings the councils' answers back (OPEN311_POLL_SECONDS). */
export function councilPollJob(civic: Civic): Job {
  return {
    name: "open311-poll",
    intervalMs: civic.config.forwarding.pollIntervalMs,
    leaseMs: 5 * 60_000,
    run: ({ signal, log }) => pollCouncils(civic, { signal, log }),
  };
}
