import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../../test/helpers/app.js";
import { reportSubmission } from "../../../test/helpers/reports.js";
import { unsubscribeUrl } from "../../newsletter/service.js";
import { open311Status, REPORT_STATUSES } from "../../reports/model.js";
import { changeStatus } from "../../reports/events.js";
import { submitReport } from "../../reports/submit.js";
import { type OutboxWorker } from "../mail/worker.js";
import { FINISHED_STATUSES, RETENTION } from "./retention.js";
import { JobRunner } from "./runner.js";

const DAY = 24 * 60 * 60_000;

describeEachDb("retention of personal data", (dialect) => {
  let t: TestApp;
  let at = new Date("2026-11-22T12:00:00.000Z").getTime();
  const advance = (ms: number) => {
    at += ms;
  };
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(at),
      // Months pass here: the reporters' "Is it fixed?" mails (reports/questionnaire.ts) would join the outbox whose
      // retention is measured, so they are asked only after a year.
      env: { QUESTIONNAIRE_AFTER_DAYS: "365" },
    });
  });
  afterAll(async () => t?.close());

  const worker = <T>(name: string) => t.app.civic.workers.find((w) => w.name === name) as T;
  const db = () => t.app.civic.database.db;

  async function report(email: string | null) {
    const { id } = await submitReport(
      t.app.civic,
      reportSubmission({
        reporter: {
          email,
          name: email ? "Ann Reporter" : null,
          phone: email ? "01234 567890" : null,
          shareContact: true,
        },
      }),
    );
    return id;
  }

  const contact = (id: number) =>
    db()
      .selectFrom("reports")
      .select(["reporter_email", "reporter_name", "reporter_phone", "share_contact", "title", "updated_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("runs as a scheduled job registered with the server's workers", () => {
    expect(worker<JobRunner>("jobs")).toBeInstanceOf(JobRunner);
  });

  it("deletes delivered mail a week after delivery and undelivered mail after 30 days", async () => {
    const jobs = worker<JobRunner>("jobs");
    const outbox = worker<OutboxWorker>("mail-outbox");
    await db().deleteFrom("outbox").execute();
    await report("delivered@example.org");
    await outbox.runOnce();
    await db()
      .updateTable("outbox")
      .set({ next_attempt_at: new Date(at + 365 * DAY).toISOString() })
      .where("sent_at", "is", null)
      .execute();
    await report("never-delivered@example.org");
    await db()
      .updateTable("outbox")
      .set({ next_attempt_at: new Date(at + 365 * DAY).toISOString() })
      .where("sent_at", "is", null)
      .execute();
    const addresses = async () =>
      (await db().selectFrom("outbox").select("to_address").where("kind", "=", "report-confirmation").execute())
        .map((r) => r.to_address)
        .sort();
    expect(await addresses()).toEqual(["delivered@example.org", "never-delivered@example.org"]);

    await jobs.runDue();
    advance(RETENTION.sentMailDays * DAY - 60_000);
    await jobs.runDue();
    expect(await addresses()).toEqual(["delivered@example.org", "never-delivered@example.org"]);
    advance(2 * 60 * 60_000);
    await jobs.runDue();
    expect(await addresses()).toEqual(["never-delivered@example.org"]);
    advance((RETENTION.unsentMailDays - RETENTION.sentMailDays) * DAY);
    await jobs.runDue();
    expect(await addresses()).toEqual([]);
    expect(await db().selectFrom("outbox").select("id").execute()).toEqual([]);
  });

  it("erases a reporter's contact details six months after the report is finished, and not before", async () => {
    const jobs = worker<JobRunner>("jobs");
    const fixed = await report("fixed@example.org");
    const stillOpen = await report("open@example.org");
    const reopened = await report("reopened@example.org");
    await changeStatus(db(), fixed, "fixed", "Filled in.", new Date(at));
    await changeStatus(db(), reopened, "closed", "", new Date(at));
    const fixedBefore = await contact(fixed);

    advance(RETENTION.contactAfterFinishedDays * DAY - 60 * 60_000);
    await changeStatus(db(), reopened, "open", "Came back.", new Date(at));
    await jobs.runDue();
    expect((await contact(fixed)).reporter_email).toBe("fixed@example.org");

    advance(2 * 60 * 60_000);
    await jobs.runDue();
    expect(await contact(fixed)).toEqual({
      ...fixedBefore,
      reporter_email: null,
      reporter_name: null,
      reporter_phone: null,
      share_contact: 0,
    });
    expect(await contact(stillOpen)).toMatchObject({
      reporter_email: "open@example.org",
      reporter_name: "Ann Reporter",
    });
    expect((await contact(reopened)).reporter_email).toBe("reopened@example.org");
    const row = await db()
      .selectFrom("job_leases")
      .selectAll()
      .where("name", "=", "retention")
      .executeTakeFirstOrThrow();
    expect(row.last_error).toBeNull();
  });

  it("deletes unconfirmed ideas, sign-ups, subscriptions and follows after 30 days, and stopped ones 30 days after", async () => {
    const jobs = worker<JobRunner>("jobs");
    const iso = (ms: number) => new Date(ms).toISOString();
    const reportId = await report(null);
    const add = async (tag: string, state: "unconfirmed" | "confirmed" | "stopped", since: number) => {
      const email = `${tag}-${state}@example.org`;
      const confirmedAt = state === "unconfirmed" ? null : iso(since);
      await db()
        .insertInto("ideas")
        .values({
          title: `Idea ${email}`,
          description: "A bench by the pond.",
          category: null,
          place_id: null,
          location_text: null,
          photo_hash: null,
          status: state === "unconfirmed" ? "unconfirmed" : "open",
          response: null,
          project_id: null,
          account_id: null,
          email,
          created_at: iso(since),
          published_at: confirmedAt,
          updated_at: iso(since),
        })
        .execute();
      await db()
        .insertInto("volunteers")
        .values({
          project_id: null,
          role: null,
          name: "Val Volunteer",
          email,
          phone: null,
          interests: "",
          availability: "",
          consent_text: "Contact me about volunteering.",
          status: state === "stopped" ? "withdrawn" : state,
          token_hash: `token-${email}`,
          account_id: null,
          created_at: iso(since),
          confirmed_at: confirmedAt,
          withdrawn_at: state === "stopped" ? iso(since) : null,
        })
        .execute();
      await db()
        .insertInto("newsletter_subscribers")
        .values({
          email,
          status: state === "stopped" ? "unsubscribed" : state,
          unsubscribe_salt: "salt",
          consent_text: "Send me the newsletter.",
          created_at: iso(since),
          confirmed_at: confirmedAt,
          unsubscribed_at: state === "stopped" ? iso(since) : null,
        })
        .execute();
      await db()
        .insertInto("report_followers")
        .values({
          report_id: reportId,
          email,
          token_hash: `follow-${email}`,
          created_at: iso(since),
          confirmed_at: confirmedAt,
        })
        .execute();
    };
    const start = at;
    await add("old", "unconfirmed", start);
    await add("old", "stopped", start);
    await add("old", "confirmed", start);
    advance(20 * DAY);
    await add("new", "unconfirmed", at);
    await add("new", "stopped", at);
    const held = async () => {
      const emails = new Set<string>();
      for (const table of ["ideas", "volunteers", "newsletter_subscribers", "report_followers"] as const) {
        const rows = await db().selectFrom(table).select("email").where("email", "like", "%-%@example.org").execute();
        for (const r of rows) if (r.email) emails.add(`${table}:${r.email.split("@")[0]}`);
      }
      return [...emails].sort();
    };
    const all = await held();
    expect(all).toHaveLength(4 * 5);
    const stoppedSubscriber = await db()
      .selectFrom("newsletter_subscribers")
      .select("id")
      .where("email", "=", "old-stopped@example.org")
      .executeTakeFirstOrThrow();
    const oldLink = new URL(unsubscribeUrl(t.app.civic, stoppedSubscriber.id, "salt")).pathname;
    expect((await t.app.inject(oldLink)).body).toContain("You are not subscribed any more");

    advance(RETENTION.unconfirmedDays * DAY - 20 * DAY - 60 * 60_000);
    await jobs.runDue();
    expect(await held()).toEqual(all);

    advance(2 * 60 * 60_000);
    await jobs.runDue();
    // Past 30 days for the first ones: the unconfirmed go everywhere, the stopped sign-up and subscription go (ideas
    // and follows have no stopped state: those rows are confirmed ones and stay), the newer ones stay.
    const gone = [
      "ideas:old-unconfirmed",
      "newsletter_subscribers:old-stopped",
      "newsletter_subscribers:old-unconfirmed",
      "report_followers:old-unconfirmed",
      "volunteers:old-stopped",
      "volunteers:old-unconfirmed",
    ];
    expect(await held()).toEqual(all.filter((e) => !gone.includes(e)));
    // A link in an old issue still answers, one click included, though the address is gone.
    const page = await t.app.inject(oldLink);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("This subscription has ended");
    const oneClick = await t.app.inject({
      method: "POST",
      url: oldLink,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.statusCode).toBe(200);
    expect((await t.app.inject(`${oldLink.slice(0, -3)}AAA`)).statusCode).toBe(200);
    expect(RETENTION.unconfirmedDays).toBe(30);
    expect(RETENTION.stoppedDays).toBe(30);
  });
});

it("the privacy notice states the periods the job enforces", async () => {
  // The notice names these statuses as "finished".
  expect(FINISHED_STATUSES).toEqual(["fixed", "closed", "duplicate", "not_responsible"]);
  expect(FINISHED_STATUSES).toEqual(REPORT_STATUSES.filter((s) => open311Status(s) === "closed"));
  const t = await createTestApp("sqlite");
  try {
    const text = (await t.app.inject("/privacy")).body.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    expect(text).toContain(
      `We delete them ${RETENTION.contactAfterFinishedDays} days (about six months) after the report is finished`,
    );
    expect(text).toContain(`deleted ${RETENTION.sentMailDays} days after they were delivered`);
    expect(text).toContain(`deleted ${RETENTION.unsentMailDays} days after it was written`);
    expect(text).toContain("did not send are deleted after one day");
    expect(text).toContain(`delete the sign-up, address and all, ${RETENTION.stoppedDays} days later`);
    expect(text).toContain(`${RETENTION.stoppedDays} days after you unsubscribe`);
    expect(text).toContain(`are deleted ${RETENTION.unconfirmedDays} days after you sent them`);
    expect(text).toContain(`we keep those backups for ${RETENTION.backupDays} days`);
  } finally {
    await t.close();
  }
});
