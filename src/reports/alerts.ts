import type { Kysely, Selectable } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB, ReportAlertFrequency, ReportAlertScope, ReportAlertsTable } from "../core/db/schema.js";
import { distanceMetres } from "../core/geo.js";
import { parseId } from "../core/http/ids.js";
import type { RecordSubmission } from "../core/http/single-use.js";
import { RETENTION } from "../core/jobs/retention.js";
import type { Job } from "../core/jobs/runner.js";
import { endLinks, issueLink, purgeOrphanLinks, useLink } from "../core/links.js";
import { layoutMail } from "../core/mail/layout.js";
import { enqueueMail, type OutgoingMail } from "../core/mail/outbox.js";
import { sendUnconfirmedMail } from "../core/mail/policy.js";
import { hashToken, newToken, safeEqual } from "../core/tokens.js";
import { publicReport } from "../core/visibility.js";
import { oneClickHeaders, readRowToken, rowToken } from "./unsubscribe.js";
import { describePlace, type GazetteerEntry, loadGazetteer, nearestStreet } from "./place-words.js";

/**
 * "Email me about new reports" (issue 35): an alert is an address and a choice (near a gazetteer place within a
 * radius, on a gazetteer street, in a category, or the whole village), sent at once or as a daily digest. Asked for
 * with a double opt-in like following a report (followers.ts): an emailed link (core/links.ts) opens a page whose
 * button confirms. Every alert mail carries a one-click unsubscribe (RFC 8058) whose token is a keyed hash of the
 * row (`a<id>.<mac>`).
 *
 * Sending is the `report-alerts` job: each new public report is matched once (a row in `report_alert_scans`,
 * inserted first in the transaction that queues its mails, so of two processes only one goes on), and each mail has
 * its own row in `report_alert_sends` (primary key alert and report), so a retry cannot queue it twice. The
 * `report-alert-digests` job sends yesterday's matching reports once per alert and day (`report_alert_digests`).
 * Mails hold the report's public title, category, place in words and link, never anything about the reporter.
 */
export const ALERT_CONFIRM = "report-alert";
const UNSUBSCRIBE = "report-alert-unsubscribe";

/** The radii offered around a place, metres. */
export const ALERT_RADII = [200, 500, 1000] as const;
/** Alerts one address may hold (asking for more gets the usual answer and nothing). */
export const MAX_ALERTS_PER_ADDRESS = 20;
/** A new report is alerted if it became public within this long (a report restored later than that is not). */
const NEW_FOR_MS = 24 * 60 * 60_000;
/** Reports matched per batch, and alerts read per batch. */
const BATCH = 200;
const MAX_ALERTS = 10_000;
/** The most reports one digest lists (more are on the site). */
const DIGEST_MAX = 50;
/** A report whose point is this close to a street, and nearer to it than to any other, is "on" it. */
export const ON_STREET_METRES = 200;

export type AlertRow = Selectable<ReportAlertsTable>;

export type AlertChoice =
  | { scope: "village" }
  | { scope: "near"; placeId: string; radiusM: number }
  | { scope: "street"; placeId: string }
  | { scope: "category"; categoryCode: string };

/** The columns of a choice, as stored. */
function choiceColumns(c: AlertChoice) {
  return {
    scope: c.scope as ReportAlertScope,
    place_id: c.scope === "near" || c.scope === "street" ? c.placeId : null,
    radius_m: c.scope === "near" ? c.radiusM : null,
    category_code: c.scope === "category" ? c.categoryCode : null,
  };
}

function alertToken(secret: string, id: number, salt: string): string {
  return rowToken(secret, UNSUBSCRIBE, "a", id, salt);
}

export function alertUnsubscribeUrl(civic: Civic, row: Pick<AlertRow, "id" | "token_hash">): string {
  return `${civic.site.baseUrl}/alerts/unsubscribe/${alertToken(civic.config.sessionSecret, row.id, row.token_hash)}`;
}

/** The names a choice is told by. */
export interface AlertNames {
  places: ReadonlyMap<string, string>;
  categories: ReadonlyMap<string, string>;
}

export async function alertNames(db: Kysely<DB>): Promise<AlertNames> {
  const [places, categories] = await Promise.all([
    db.selectFrom("places").select(["id", "name"]).execute(),
    db.selectFrom("categories").select(["code", "name"]).execute(),
  ]);
  return {
    places: new Map(places.map((p) => [p.id, p.name])),
    categories: new Map(categories.map((c) => [c.code, c.name])),
  };
}

/** An alert's choice in words: "Within 500 m of War memorial", "On High Street", "Potholes", "The whole village". */
export function describeAlert(
  a: Pick<AlertRow, "scope" | "place_id" | "radius_m" | "category_code">,
  names: AlertNames,
): string {
  const place = (a.place_id && names.places.get(a.place_id)) ?? a.place_id ?? "";
  switch (a.scope) {
    case "near":
      return `Within ${radiusInWords(a.radius_m ?? 0)} of ${place}`;
    case "street":
      return `On ${place}`;
    case "category":
      return `Category: ${(a.category_code && names.categories.get(a.category_code)) ?? a.category_code ?? ""}`;
    default:
      return "The whole village";
  }
}

export function radiusInWords(m: number): string {
  return m >= 1000 ? `${m / 1000} km` : `${m} m`;
}

/**
 * Asks for an alert (or asks again for one not yet confirmed) and mails the confirmation link, within the mail
 * policy's caps. An alert already confirmed, or an address at its limit of alerts, gets nothing new; the caller
 * answers the same either way.
 */
export async function requestAlert(
  civic: Civic,
  input: { email: string; choice: AlertChoice; frequency: ReportAlertFrequency },
  options: {
    /** Records the form's single use first, in the same transaction (a replay throws a unique violation). */
    recordSubmission?: RecordSubmission | undefined;
    /** The address is a signed-in account's own (accounts/prefill.ts): the alert is on at once, no mail. */
    proven?: boolean;
  } = {},
): Promise<void> {
  const { recordSubmission, proven = false } = options;
  const now = civic.now();
  const at = now.toISOString();
  const columns = choiceColumns(input.choice);
  const salt = hashToken(newToken());
  await civic.database.db.transaction().execute(async (tx) => {
    if (recordSubmission) await recordSubmission(tx, "alert");
    const mine = await tx
      .selectFrom("report_alerts")
      .selectAll()
      .where("email", "=", input.email)
      .orderBy("id")
      .limit(MAX_ALERTS_PER_ADDRESS + 1)
      .execute();
    const existing = mine.find(
      (r) =>
        r.scope === columns.scope &&
        r.place_id === columns.place_id &&
        (r.radius_m === null ? null : Number(r.radius_m)) === columns.radius_m &&
        r.category_code === columns.category_code &&
        r.frequency === input.frequency,
    );
    if (existing?.confirmed_at) return;
    const confirmedAt = proven ? at : null;
    let id: number;
    if (existing) {
      id = existing.id;
      await tx
        .updateTable("report_alerts")
        .set({ token_hash: salt, created_at: at, confirmed_at: confirmedAt })
        .where("id", "=", id)
        .execute();
      await endLinks(tx, { purpose: ALERT_CONFIRM, ref: id }, now);
    } else {
      if (mine.length >= MAX_ALERTS_PER_ADDRESS) return;
      const row = await tx
        .insertInto("report_alerts")
        .values({
          email: input.email,
          ...columns,
          frequency: input.frequency,
          token_hash: salt,
          created_at: at,
          confirmed_at: confirmedAt,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      id = row.id;
    }
    if (proven) return;
    const token = await issueLink(
      tx,
      {
        purpose: ALERT_CONFIRM,
        email: input.email,
        ref: id,
        expiresAt: new Date(now.getTime() + RETENTION.unconfirmedDays * 24 * 60 * 60_000),
        maxUses: 1,
      },
      now,
    );
    const area = describeAlert(columns, await alertNames(tx));
    const how = input.frequency === "daily" ? "once a day" : "as soon as they are public";
    await sendUnconfirmedMail(
      tx,
      { secret: civic.config.sessionSecret, now },
      layoutMail(
        civic.site,
        { kind: "report-alert-confirm", to: input.email, subject: "Confirm your alert for new reports" },
        {
          heading: "Confirm your alert for new reports",
          body: [
            `Someone (we hope you) asked to be emailed about new reports on the ${civic.site.villageName} Community Platform, ${how}.`,
            { facts: [{ label: "Reports", value: area }] },
          ],
          action: {
            lead: "To confirm, open this link and press the button on the page:",
            label: "Confirm the alert",
            url: `${civic.site.baseUrl}/alerts/confirm/${token}`,
          },
          after: ["If it was not you, ignore this message: nothing more will be sent."],
          footer: {
            why: "You get this message because this address was typed into the alerts form on our site.",
          },
        },
      ),
    );
  });
}

/** The unconfirmed alert an emailed link's `ref` names, or undefined. */
export async function unconfirmedAlert(db: Kysely<DB>, ref: string | null): Promise<AlertRow | undefined> {
  const id = parseId(ref ?? undefined);
  if (id === null) return undefined;
  return db
    .selectFrom("report_alerts")
    .selectAll()
    .where("id", "=", id)
    .where("confirmed_at", "is", null)
    .executeTakeFirst();
}

/** Confirms an alert by its link token (used once); the alert, or undefined. */
export async function confirmAlert(civic: Civic, token: string): Promise<AlertRow | undefined> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const link = await useLink(tx, ALERT_CONFIRM, token, now);
    const alert = link ? await unconfirmedAlert(tx, link.ref) : undefined;
    if (!alert) return undefined;
    await tx
      .updateTable("report_alerts")
      .set({ confirmed_at: now.toISOString() })
      .where("id", "=", alert.id)
      .where("confirmed_at", "is", null)
      .execute();
    return alert;
  });
}

/** The alert an unsubscribe token names, or undefined (malformed, forged, or stopped already). */
export async function alertOfToken(civic: Civic, token: string): Promise<AlertRow | undefined> {
  const claimed = readRowToken(token, "a");
  if (!claimed) return undefined;
  const row = await civic.database.db
    .selectFrom("report_alerts")
    .selectAll()
    .where("id", "=", claimed.id)
    .executeTakeFirst();
  if (!row || !safeEqual(alertToken(civic.config.sessionSecret, row.id, row.token_hash), token)) return undefined;
  return row;
}

/** Stops an alert: its row (and its sent markers) are deleted. */
export async function stopAlert(civic: Civic, id: number): Promise<void> {
  await civic.database.db.deleteFrom("report_alerts").where("id", "=", id).execute();
}

/** A new public report, as an alert mail tells it. */
interface AlertReport {
  id: number;
  reference: string;
  title: string;
  categoryCode: string;
  categoryName: string;
  placeId: string | null;
  lat: number | null;
  lng: number | null;
  where: string | null;
  createdAt: string;
}

/** Whether a report matches an alert's choice. */
export function alertMatches(
  a: Pick<AlertRow, "scope" | "place_id" | "radius_m" | "category_code">,
  r: Pick<AlertReport, "categoryCode" | "placeId" | "lat" | "lng">,
  gazetteer: readonly GazetteerEntry[],
): boolean {
  switch (a.scope) {
    case "village":
      return true;
    case "category":
      return r.categoryCode === a.category_code;
    case "near": {
      if (r.placeId !== null && r.placeId === a.place_id) return true;
      const place = gazetteer.find((p) => p.id === a.place_id);
      if (!place || r.lat === null || r.lng === null) return false;
      return distanceMetres(r.lat, r.lng, place.latitude, place.longitude) <= Number(a.radius_m ?? 0);
    }
    case "street": {
      if (r.placeId !== null && r.placeId === a.place_id) return true;
      if (r.lat === null || r.lng === null) return false;
      const street = nearestStreet(r.lat, r.lng, gazetteer);
      return street !== null && street.place.id === a.place_id && street.metres <= ON_STREET_METRES;
    }
    default:
      return false;
  }
}

const iso = (t: unknown) => (t instanceof Date ? t.toISOString() : String(t));

/** Public reports by id or created in a time range, as alert mails tell them (nothing about the reporter). */
async function publicReportsFor(
  db: Kysely<DB>,
  where: { ids: number[] } | { from: string; to: string },
  gazetteer: readonly GazetteerEntry[],
): Promise<AlertReport[]> {
  let q = db
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("places", "places.id", "reports.place_id")
    .select([
      "reports.id",
      "reports.reference",
      "reports.title",
      "reports.category_code",
      "categories.name as category_name",
      "reports.place_id",
      "reports.latitude",
      "reports.longitude",
      "reports.location_text",
      "places.name as place_name",
      "reports.created_at",
    ])
    .where(publicReport)
    .orderBy("reports.id");
  q =
    "ids" in where
      ? q.where("reports.id", "in", where.ids)
      : q
          .where("reports.created_at", ">=", where.from)
          .where("reports.created_at", "<", where.to)
          .limit(DIGEST_MAX * 10);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    reference: r.reference,
    title: r.title,
    categoryCode: r.category_code,
    categoryName: r.category_name,
    placeId: r.place_id,
    lat: r.latitude,
    lng: r.longitude,
    where: describePlace(
      { lat: r.latitude, lng: r.longitude, placeName: r.place_name, locationText: r.location_text },
      gazetteer,
    ),
    createdAt: iso(r.created_at),
  }));
}

async function confirmedAlerts(db: Kysely<DB>, frequency: ReportAlertFrequency): Promise<AlertRow[]> {
  return db
    .selectFrom("report_alerts")
    .selectAll()
    .where("frequency", "=", frequency)
    .where("confirmed_at", "is not", null)
    .orderBy("id")
    .limit(MAX_ALERTS)
    .execute();
}

function footer(unsubscribe: string) {
  return {
    why: "You get this message because you asked for alerts about new reports on our site and confirmed it.",
    stop: { label: "Stop this alert", url: unsubscribe },
  };
}

/** The mail of one new report for one alert. */
export function alertMail(civic: Civic, alert: AlertRow, area: string, r: AlertReport): OutgoingMail {
  const unsubscribe = alertUnsubscribeUrl(civic, alert);
  return layoutMail(
    civic.site,
    {
      kind: "report-alert",
      to: alert.email,
      subject: `New report ${r.reference}: ${r.categoryName}`,
      headers: oneClickHeaders(unsubscribe),
    },
    {
      heading: `New report ${r.reference}`,
      body: [
        `A new report matches your alert: ${area}.`,
        {
          facts: [
            { label: "Title", value: r.title },
            { label: "Category", value: r.categoryName },
            { label: "Where", value: r.where ?? "Not given" },
          ],
        },
      ],
      action: { label: "See the report", url: `${civic.site.baseUrl}/reports/${r.reference}` },
      footer: footer(unsubscribe),
    },
  );
}

/** The daily digest of one alert: the day's matching reports. */
export function digestMail(civic: Civic, alert: AlertRow, area: string, day: string, rs: AlertReport[]): OutgoingMail {
  const unsubscribe = alertUnsubscribeUrl(civic, alert);
  const shown = rs.slice(0, DIGEST_MAX);
  const more = rs.length - shown.length;
  return layoutMail(
    civic.site,
    {
      kind: "report-alert-digest",
      to: alert.email,
      subject: `New reports on ${day}: ${rs.length}`,
      headers: oneClickHeaders(unsubscribe),
    },
    {
      heading: `New reports on ${day}`,
      body: [
        `${rs.length === 1 ? "One new report matches" : `${rs.length} new reports match`} your alert: ${area}.`,
        {
          title: "The reports",
          links: shown.map((r) => ({
            label: `${r.reference}: ${r.title} (${r.categoryName}${r.where ? `, ${r.where}` : ""})`,
            url: `${civic.site.baseUrl}/reports/${r.reference}`,
          })),
        },
        ...(more > 0 ? [`And ${more} more on the site.`] : []),
      ],
      action: { label: "See all reports", url: `${civic.site.baseUrl}/reports` },
      footer: footer(unsubscribe),
    },
  );
}

/**
 * Matches the public reports of the last day not yet matched against the confirmed immediate alerts and queues one
 * mail per matching alert and report. Safe to run in several processes at once and to retry: the scan row of a
 * report and the send row of each mail are inserted in the transaction that queues the mails, with unique keys.
 * Returns how many mails were queued.
 */
export async function sendNewReportAlerts(civic: Civic, signal?: AbortSignal): Promise<number> {
  const db = civic.database.db;
  const now = civic.now();
  let queued = 0;
  for (;;) {
    if (signal?.aborted) return queued;
    const fresh = await db
      .selectFrom("reports")
      .select("reports.id")
      .where(publicReport)
      .where("reports.created_at", ">=", new Date(now.getTime() - NEW_FOR_MS).toISOString())
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("report_alert_scans")
              .select("report_alert_scans.report_id")
              .whereRef("report_alert_scans.report_id", "=", "reports.id"),
          ),
        ),
      )
      .orderBy("reports.id")
      .limit(BATCH)
      .execute();
    if (fresh.length === 0) return queued;
    const [alerts, gazetteer, names] = await Promise.all([
      confirmedAlerts(db, "immediate"),
      loadGazetteer(db),
      alertNames(db),
    ]);
    for (const { id } of fresh) queued += await alertReport(civic, id, now, { alerts, gazetteer, names });
  }
}

/**
 * Matches one report against the confirmed immediate alerts and queues their mails, in one transaction that first
 * inserts the report's scan row: of several processes (or the submit and the job) exactly one does it, and a failure
 * leaves no scan row, so the job tries again. A report not public is neither alerted nor marked scanned.
 */
async function alertReport(
  civic: Civic,
  id: number,
  now: Date,
  read: { alerts: AlertRow[]; gazetteer: readonly GazetteerEntry[]; names: AlertNames },
): Promise<number> {
  const { alerts, gazetteer, names } = read;
  return civic.database.db.transaction().execute(async (tx) => {
    // Read inside the transaction: a report hidden by moderation meanwhile is not alerted, and not marked scanned,
    // so the job alerts it if it is public again within the day.
    const [report] = await publicReportsFor(tx, { ids: [id] }, gazetteer);
    if (!report) return 0;
    const scanned = await tx
      .insertInto("report_alert_scans")
      .values({ report_id: id, scanned_at: now.toISOString() })
      .onConflict((oc) => oc.column("report_id").doNothing())
      .returning("report_id")
      .executeTakeFirst();
    if (!scanned) return 0; // another process has it
    let n = 0;
    for (const alert of alerts) {
      if (Date.parse(iso(alert.confirmed_at)) > Date.parse(report.createdAt)) continue;
      if (!alertMatches(alert, report, gazetteer)) continue;
      const sent = await tx
        .insertInto("report_alert_sends")
        .values({ alert_id: alert.id, report_id: id, sent_at: now.toISOString() })
        .onConflict((oc) => oc.columns(["alert_id", "report_id"]).doNothing())
        .returning("alert_id")
        .executeTakeFirst();
      if (!sent) continue;
      const mail = alertMail(civic, alert, describeAlert(alert, names), report);
      if ((await enqueueMail(tx, mail, now)) !== null) n++;
    }
    return n;
  });
}

/**
 * Queues the immediate alerts of a report just stored (called once its transaction has committed), so they go out
 * with the next mail delivery rather than after the minute job: the same transaction and unique rows as the job, so
 * with several instances each mail is still queued once. A report held from the public is left to the job (which
 * alerts it if it becomes public within a day). Returns how many mails were queued.
 */
export async function alertNewReport(civic: Civic, id: number, gazetteer?: readonly GazetteerEntry[]): Promise<number> {
  const db = civic.database.db;
  const [alerts, places, names] = await Promise.all([
    confirmedAlerts(db, "immediate"),
    gazetteer ?? loadGazetteer(db),
    alertNames(db),
  ]);
  if (alerts.length === 0) return 0;
  return alertReport(civic, id, civic.now(), { alerts, gazetteer: places, names });
}

/** The UTC day before `now`, and its start and end. */
function yesterday(now: Date): { day: string; from: string; to: string } {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(to.getTime() - 24 * 60 * 60_000);
  return { day: from.toISOString().slice(0, 10), from: from.toISOString(), to: to.toISOString() };
}

/**
 * Queues yesterday's digest (UTC day) for every confirmed daily alert that has not had it: one mail listing the
 * day's matching public reports, none when nothing matched. Once per alert and day (`report_alert_digests`, written
 * in the transaction that queues the mail), whichever process runs it. Returns how many mails were queued.
 */
export async function sendAlertDigests(civic: Civic, signal?: AbortSignal): Promise<number> {
  const db = civic.database.db;
  const now = civic.now();
  const { day, from, to } = yesterday(now);
  const alerts = (await confirmedAlerts(db, "daily")).filter((a) => Date.parse(iso(a.confirmed_at)) < Date.parse(to));
  if (alerts.length === 0) return 0;
  const done = new Set(
    (await db.selectFrom("report_alert_digests").select("alert_id").where("day", "=", day).execute()).map((r) =>
      Number(r.alert_id),
    ),
  );
  const gazetteer = await loadGazetteer(db);
  const [reports, names] = await Promise.all([publicReportsFor(db, { from, to }, gazetteer), alertNames(db)]);
  let queued = 0;
  for (const alert of alerts) {
    if (signal?.aborted) break;
    if (done.has(alert.id)) continue;
    const since = Date.parse(iso(alert.confirmed_at));
    const matching = reports.filter((r) => Date.parse(r.createdAt) >= since && alertMatches(alert, r, gazetteer));
    queued += await db.transaction().execute(async (tx) => {
      const marked = await tx
        .insertInto("report_alert_digests")
        .values({ alert_id: alert.id, day, sent_at: now.toISOString() })
        .onConflict((oc) => oc.columns(["alert_id", "day"]).doNothing())
        .returning("alert_id")
        .executeTakeFirst();
      if (!marked || matching.length === 0) return 0;
      const mail = digestMail(civic, alert, describeAlert(alert, names), day, matching);
      return (await enqueueMail(tx, mail, now)) !== null ? 1 : 0;
    });
  }
  return queued;
}

/**
 * Forgets what alerts no longer need: unconfirmed alerts `unconfirmedDays` after they were asked for (with their
 * links), and the sent markers of reports and days older than a week (a report is alerted within a day). Returns
 * how many rows went.
 */
export async function purgeAlerts(db: Kysely<DB>, now: Date): Promise<number> {
  const asked = new Date(now.getTime() - RETENTION.unconfirmedDays * 24 * 60 * 60_000).toISOString();
  const week = new Date(now.getTime() - 7 * 24 * 60 * 60_000);
  const results = await Promise.all([
    db.deleteFrom("report_alerts").where("confirmed_at", "is", null).where("created_at", "<", asked).executeTakeFirst(),
    db.deleteFrom("report_alert_scans").where("scanned_at", "<", week.toISOString()).executeTakeFirst(),
    db.deleteFrom("report_alert_sends").where("sent_at", "<", week.toISOString()).executeTakeFirst(),
    db.deleteFrom("report_alert_digests").where("day", "<", week.toISOString().slice(0, 10)).executeTakeFirst(),
  ]);
  const links = await purgeOrphanLinks(db, ALERT_CONFIRM, "report_alerts");
  return results.reduce((n, r) => n + Number(r.numDeletedRows), links);
}

/** The jobs of alerts: new reports every minute (under a lease), yesterday's digests and the clean-up hourly. */
export function alertJobs(civic: Civic): Job[] {
  return [
    {
      name: "report-alerts",
      intervalMs: 60_000,
      leaseMs: 5 * 60_000,
      async run({ signal }) {
        const queued = await sendNewReportAlerts(civic, signal);
        return queued > 0 ? { queued } : undefined;
      },
    },
    {
      name: "report-alert-digests",
      intervalMs: 60 * 60_000,
      leaseMs: 10 * 60_000,
      async run({ now, signal }) {
        const queued = await sendAlertDigests(civic, signal);
        const purged = await purgeAlerts(civic.database.db, now);
        return queued + purged > 0 ? { queued, purged } : undefined;
      },
    },
  ];
}
