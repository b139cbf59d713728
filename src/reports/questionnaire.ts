import type { Kysely } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { AppError } from "../core/http/errors.js";
import type { Job } from "../core/jobs/runner.js";
import { endLinks, issueLink, type LiveLink, useLink } from "../core/links.js";
import { layoutMail } from "../core/mail/layout.js";
import { enqueueMail, type OutgoingMail } from "../core/mail/outbox.js";
import { publicPhoto, publicReport } from "../core/visibility.js";
import { recordReportEvent } from "./events.js";
import { updateRecipients } from "./followers.js";
import { STATUS_LABELS, UNRESOLVED_STATUSES, type ReportStatus } from "./model.js";
import { reportPhotoUrl } from "./photos.js";
import { describePlace, loadGazetteer } from "./place-words.js";
import { oneClickHeaders } from "./unsubscribe.js";

/**
 * "Is it fixed?" (issue 36). QUESTIONNAIRE_AFTER_DAYS after a report's latest public event (its making, a status
 * change, an update) while it is still open — or after staff marked it fixed — its reporter, if they gave an address
 * and did not stop the mails about it, gets one mail showing the place in words and a link to their first photo,
 * with "Yes, fixed" and "No, still a problem" links. Both are the same emailed link (core/links.ts, single use):
 * each opens a page whose one button confirms (a POST); the answer, with an optional comment, is a public update
 * through the one path (events.ts, kind "questionnaire", by "reporter"), which moves the status through the
 * transition table (to fixed, or reopened) and tells the followers.
 *
 * A round is the report's latest public event when the questionnaire fell due (`report_questionnaires`, unique per
 * report and round, inserted first in the transaction that queues the mail): one mail per report per round, whichever
 * process runs the `report-questionnaires` job and however often. A new public event (the answer itself included)
 * starts a new round; a report the reporter says is fixed is not asked about again.
 */
export const QUESTIONNAIRE_LINK = "report-questionnaire";
/** How long the links in the mail work. */
const LINK_DAYS = 56;
const DAY = 24 * 60 * 60_000;
const BATCH = 100;

export type QuestionnaireAnswer = "yes" | "no";

const iso = (t: unknown) => (t instanceof Date ? t.toISOString() : String(t));

/** The page a link of the mail opens, for one answer. */
export function questionnairePath(answer: QuestionnaireAnswer, token: string): string {
  return `/reports/fixed/${answer}/${token}`;
}

export interface QuestionnaireMailFacts {
  reference: string;
  title: string;
  status: ReportStatus;
  where: string | null;
  madeAt: string;
  photoUrl: string | null;
  token: string;
  unsubscribeUrl: string;
}

const day = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

/** The mail asking the reporter whether the problem is fixed. */
export function questionnaireMail(civic: Civic, to: string, r: QuestionnaireMailFacts): OutgoingMail {
  const base = civic.site.baseUrl;
  return layoutMail(
    civic.site,
    {
      kind: "report-questionnaire",
      to,
      subject: `Is it fixed? Your report ${r.reference}`,
      headers: oneClickHeaders(r.unsubscribeUrl),
    },
    {
      heading: `Is it fixed? Your report ${r.reference}`,
      body: [
        `On ${day.format(new Date(r.madeAt))} you reported this problem. Is it fixed now? Your answer is shown on ` +
          "the report's public page (never your name or address), and you may add a comment.",
        {
          facts: [
            { label: "Report", value: r.reference, url: `${base}/reports/${r.reference}` },
            { label: "Title", value: r.title },
            { label: "Where", value: r.where ?? "Not given" },
            { label: "Status now", value: STATUS_LABELS[r.status] },
          ],
        },
        ...(r.photoUrl
          ? [{ title: "Your photo:", links: [{ label: "Your first photo of it", url: r.photoUrl }] }]
          : []),
      ],
      action: {
        label: "Yes, fixed",
        lead: "If it is fixed, open this link and press “Yes, fixed”:",
        url: `${base}${questionnairePath("yes", r.token)}`,
      },
      after: [
        "If it is still a problem, open this link and press “No, still a problem”:",
        {
          facts: [
            { label: "Not fixed", value: "No, still a problem", url: `${base}${questionnairePath("no", r.token)}` },
          ],
        },
        `The links work once, for ${LINK_DAYS / 7} weeks.`,
      ],
      footer: {
        why:
          `You get this message because this address was given with report ${r.reference}. ` +
          "Your email address is not published.",
        stop: { label: "Stop the mails about this report", url: r.unsubscribeUrl },
      },
    },
  );
}

/** A report due for its questionnaire now, and the round (its latest public event). */
async function dueReports(
  db: Kysely<DB>,
  now: Date,
  afterDays: number,
  after: number,
): Promise<{ id: number; basisId: number }[]> {
  const cutoff = new Date(now.getTime() - afterDays * DAY).toISOString();
  const rows = await db
    .selectFrom("reports")
    .innerJoin("report_updates as u", "u.report_id", "reports.id")
    .select(["reports.id", "u.id as basis_id"])
    .where(publicReport)
    .where("reports.reporter_email", "is not", null)
    .where("reports.updates_stopped_at", "is", null)
    .where("reports.id", ">", after)
    .where("u.id", "=", (eb) =>
      eb
        .selectFrom("report_updates as l")
        .select((s) => s.fn.max("l.id").as("latest"))
        .whereRef("l.report_id", "=", "reports.id")
        .where("l.internal", "=", 0),
    )
    .where("u.created_at", "<=", cutoff)
    .where((eb) =>
      eb.or([
        eb("reports.status", "in", UNRESOLVED_STATUSES),
        // Marked fixed by staff (not by the reporter's own answer): ask the reporter to confirm it.
        eb.and([
          eb("reports.status", "=", "fixed"),
          eb("u.event", "=", "status"),
          eb("u.status", "=", "fixed"),
          eb("u.author_kind", "in", ["staff", "council", "system"]),
        ]),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("report_questionnaires as q")
            .select("q.id")
            .whereRef("q.report_id", "=", "reports.id")
            .whereRef("q.basis_id", "=", "u.id"),
        ),
      ),
    )
    .orderBy("reports.id")
    .limit(BATCH)
    .execute();
  return rows.map((r) => ({ id: Number(r.id), basisId: Number(r.basis_id) }));
}

/**
 * Queues the questionnaire mail of every report due for one now. Safe to run in several processes at once and to
 * retry: the round's row is inserted (unique per report and round) in the transaction that issues the link and
 * queues the mail, so only one process goes on. Returns how many mails were queued.
 */
export async function sendQuestionnaires(civic: Civic, signal?: AbortSignal): Promise<number> {
  const db = civic.database.db;
  const now = civic.now();
  const at = now.toISOString();
  const gazetteer = await loadGazetteer(db);
  let queued = 0;
  let after = 0;
  for (;;) {
    if (signal?.aborted) return queued;
    const due = await dueReports(db, now, civic.config.questionnaireAfterDays, after);
    if (due.length === 0) return queued;
    after = due[due.length - 1]!.id;
    for (const { id, basisId } of due) {
      queued += await db.transaction().execute(async (tx) => {
        const round = await tx
          .insertInto("report_questionnaires")
          .values({
            report_id: id,
            basis_id: basisId,
            sent_at: at,
            answer: null,
            answered_at: null,
            answer_update_id: null,
          })
          .onConflict((oc) => oc.columns(["report_id", "basis_id"]).doNothing())
          .returning("id")
          .executeTakeFirst();
        if (!round) return 0; // another process has it
        // Read again inside the transaction: a report hidden meanwhile gets no mail.
        const report = await tx
          .selectFrom("reports")
          .leftJoin("places", "places.id", "reports.place_id")
          .select([
            "reports.reference",
            "reports.title",
            "reports.status",
            "reports.latitude",
            "reports.longitude",
            "reports.location_text",
            "reports.reporter_email",
            "reports.account_id",
            "reports.created_at",
            "places.name as place_name",
          ])
          .where("reports.id", "=", id)
          .where(publicReport)
          .executeTakeFirst();
        if (!report?.reporter_email) return 0;
        const email = report.reporter_email.trim().toLowerCase();
        // The reporter's own one-click unsubscribe; none when they stopped the mails about this report.
        const reporter = (await updateRecipients(civic, tx, id)).find((r) => r.to.trim().toLowerCase() === email);
        if (!reporter) return 0;
        const photo = await tx
          .selectFrom("report_photos")
          .select("hash")
          .where("report_id", "=", id)
          .where(publicPhoto)
          .orderBy("position")
          .limit(1)
          .executeTakeFirst();
        const token = await issueLink(
          tx,
          {
            purpose: QUESTIONNAIRE_LINK,
            email,
            accountId: report.account_id,
            ref: round.id,
            expiresAt: new Date(now.getTime() + LINK_DAYS * DAY),
            maxUses: 1,
          },
          now,
        );
        const mail = questionnaireMail(civic, report.reporter_email, {
          reference: report.reference,
          title: report.title,
          status: report.status,
          where: describePlace(
            {
              lat: report.latitude,
              lng: report.longitude,
              placeName: report.place_name,
              locationText: report.location_text,
            },
            gazetteer,
          ),
          madeAt: iso(report.created_at),
          photoUrl: photo ? reportPhotoUrl(civic.site.baseUrl, photo.hash, "thumb") : null,
          token,
          unsubscribeUrl: reporter.unsubscribeUrl,
        });
        return (await enqueueMail(tx, { ...mail, key: `report-questionnaire:${round.id}` }, now)) !== null ? 1 : 0;
      });
    }
  }
}

/** What the page of a questionnaire link shows: the report, or null when the link has nothing left to do. */
export interface OpenQuestionnaire {
  id: number;
  reference: string;
  title: string;
  status: ReportStatus;
  where: string | null;
}

/** The unanswered round a live link names, on a public report; null otherwise. */
export async function openQuestionnaire(db: Kysely<DB>, link: LiveLink): Promise<OpenQuestionnaire | null> {
  const id = Number(link.ref);
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const row = await db
    .selectFrom("report_questionnaires as q")
    .innerJoin("reports", "reports.id", "q.report_id")
    .leftJoin("places", "places.id", "reports.place_id")
    .select([
      "q.id",
      "reports.reference",
      "reports.title",
      "reports.status",
      "reports.latitude",
      "reports.longitude",
      "reports.location_text",
      "places.name as place_name",
    ])
    .where("q.id", "=", id)
    .where("q.answer", "is", null)
    .where(publicReport)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: Number(row.id),
    reference: row.reference,
    title: row.title,
    status: row.status,
    where: describePlace(
      { lat: row.latitude, lng: row.longitude, placeName: row.place_name, locationText: row.location_text },
      await loadGazetteer(db),
    ),
  };
}

/**
 * The reporter pressed the button: uses the link once and records the answer through the one path, in one
 * transaction (a refused comment leaves the link unused). Null when the link is not valid, used or expired, or its
 * round was answered; throws `not_found` when the report is no longer public and `validation_failed` for a comment
 * that is too long.
 */
export async function answerQuestionnaire(
  civic: Civic,
  token: string,
  answer: QuestionnaireAnswer,
  comment: string,
): Promise<{ reference: string; status: ReportStatus } | null> {
  const now = civic.now();
  return civic.database.db.transaction().execute(async (tx) => {
    const link = await useLink(tx, QUESTIONNAIRE_LINK, token, now);
    if (!link) return null;
    const id = Number(link.ref);
    const round = await tx
      .selectFrom("report_questionnaires as q")
      .innerJoin("reports", "reports.id", "q.report_id")
      .select(["q.id", "q.report_id", "q.answer", "reports.reference", "reports.account_id"])
      .where("q.id", "=", Number.isSafeInteger(id) ? id : -1)
      .executeTakeFirst();
    if (!round || round.answer !== null) return null;
    const fixed = answer === "yes";
    const recorded = await recordReportEvent(
      tx,
      { civic, now, by: "reporter", accountId: round.account_id, email: link.email, key: `questionnaire:${round.id}` },
      round.report_id,
      { kind: "questionnaire", fixed, note: comment },
    );
    const marked = await tx
      .updateTable("report_questionnaires")
      .set({
        answer: fixed ? "fixed" : "not-fixed",
        answered_at: now.toISOString(),
        answer_update_id: recorded.updateId,
      })
      .where("id", "=", round.id)
      .where("answer", "is", null)
      .executeTakeFirst();
    if (!recorded.created || Number(marked.numUpdatedRows) !== 1) {
      throw new AppError("gone", "This question was answered already.");
    }
    // Older rounds' links of this report have nothing left to do.
    const older = await tx
      .selectFrom("report_questionnaires")
      .select("id")
      .where("report_id", "=", round.report_id)
      .where("answer", "is", null)
      .execute();
    for (const o of older) await endLinks(tx, { purpose: QUESTIONNAIRE_LINK, ref: Number(o.id) }, now);
    return { reference: round.reference, status: recorded.to };
  });
}

/** The questionnaire job: hourly, under a lease, so one process sends each round's mail. */
export function questionnaireJobs(civic: Civic): Job[] {
  return [
    {
      name: "report-questionnaires",
      intervalMs: 60 * 60_000,
      leaseMs: 10 * 60_000,
      async run({ signal }) {
        const queued = await sendQuestionnaires(civic, signal);
        return queued > 0 ? { queued } : undefined;
      },
    },
  ];
}
