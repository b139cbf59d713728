import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { JobRunner } from "../../src/core/jobs/runner.js";
import { recordReportEvent } from "../../src/reports/events.js";
import { questionnaireJobs, sendQuestionnaires } from "../../src/reports/questionnaire.js";
import { submitReport } from "../../src/reports/submit.js";
import { type AccountsHarness, accountsHarness, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { pngImage } from "../helpers/images.js";

const DAY = 24 * 60 * 60_000;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

it("QUESTIONNAIRE_AFTER_DAYS is 28 by default and must be a whole number of days from 1 to 365", () => {
  const base = { DATA_DIR: "/tmp/civic-q", SESSION_SECRET: "test-secret-test-secret-test-secret-0123" };
  expect(loadConfig(base).questionnaireAfterDays).toBe(28);
  expect(loadConfig({ ...base, QUESTIONNAIRE_AFTER_DAYS: "7" }).questionnaireAfterDays).toBe(7);
  for (const bad of ["0", "366", "two", "-1"]) {
    expect(() => loadConfig({ ...base, QUESTIONNAIRE_AFTER_DAYS: bad })).toThrow(ConfigError);
  }
});

/**
 * "Is it fixed?" (issue 36): QUESTIONNAIRE_AFTER_DAYS after a report's last change while it is open, or after staff
 * marked it fixed, its reporter gets one mail (real SMTP) per round, even from two instances; its links open pages
 * whose one button records the answer through the one path (a public update, fixed or reopened).
 */
describeEachDb("Is it fixed? questionnaire", (dialect) => {
  let h: AccountsHarness;
  const db = () => h.app.civic.database.db;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  async function newReport(email: string, o: { title?: string; photo?: boolean } = {}) {
    return submitReport(h.app.civic, {
      categoryCode: "pothole",
      title: o.title ?? "Pothole by the war memorial",
      description: "Deep hole on the corner.",
      lat: 50.9866,
      lng: -2.0441,
      locationText: null,
      placeId: null,
      addressId: null,
      attributes: { road_or_pavement: ["road"] },
      photos: o.photo ? [{ data: await pngImage(), filename: "hole.png" }] : [],
      mediaUrl: null,
      reporter: { email, name: "Rita Reporter", phone: null, shareContact: false },
      deviceId: null,
      accountId: null,
      source: "web",
      apiKeyId: null,
    });
  }

  const asked = (to: string) =>
    db()
      .selectFrom("outbox")
      .selectAll()
      .where("kind", "=", "report-questionnaire")
      .where("to_address", "=", to)
      .execute();

  /** The questionnaire mail to `to`, through the real SMTP server, and its two links' paths. */
  async function linksIn(to: string) {
    const mail = await h.mailTo(to);
    expect(mail.parsed.subject).toMatch(/^Is it fixed\? Your report/);
    const text = mail.parsed.text ?? "";
    const yes = /http:\/\/civic\.test(\/reports\/fixed\/yes\/[A-Za-z0-9_-]{43})/.exec(text)?.[1];
    const no = /http:\/\/civic\.test(\/reports\/fixed\/no\/[A-Za-z0-9_-]{43})/.exec(text)?.[1];
    expect(yes).toBeDefined();
    expect(no).toBeDefined();
    return { mail, text, yes: yes!, no: no! };
  }

  async function answer(path: string, comment: string) {
    const page = await h.app.inject({ method: "GET", url: path });
    expect(page.statusCode).toBe(200);
    return h.app.inject({
      method: "POST",
      url: path,
      headers: FORM,
      payload: new URLSearchParams({ _csrf: tokenIn(page.body), comment }).toString(),
    });
  }

  const statusOf = async (id: number) =>
    (await db().selectFrom("reports").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

  it("mails the reporter once after QUESTIONNAIRE_AFTER_DAYS, not before, even with two instances racing", async () => {
    const report = await newReport("first@example.org", { photo: true });
    await sendQuestionnaires(h.app.civic);
    h.advance(27 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("first@example.org")).toHaveLength(0);

    h.advance(1 * DAY + 60_000);
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const app = await buildApp(h.t.config, {
          logger: false,
          database: h.t.db.reopen(),
          now: () => h.app.civic.now(),
        });
        await app.ready();
        return app;
      }),
    );
    try {
      // Two processes' job runners: the lease lets one run the job; the round's row lets one queue the mail.
      const runners = instances.map(
        (app, i) =>
          new JobRunner({
            db: app.civic.database.db,
            jobs: questionnaireJobs(app.civic),
            now: () => app.civic.now(),
            owner: `p${i}`,
          }),
      );
      const ran = await Promise.all(runners.map((r) => r.runDue()));
      expect(ran.flat()).toEqual(["report-questionnaires"]);
      if (dialect === "postgres") {
        await Promise.all(instances.map((app) => sendQuestionnaires(app.civic)));
      } else {
        for (const app of instances) await sendQuestionnaires(app.civic);
      }
    } finally {
      await Promise.all(instances.map((app) => app.close()));
    }
    await sendQuestionnaires(h.app.civic);
    expect(await asked("first@example.org")).toHaveLength(1);

    const { mail, text } = await linksIn("first@example.org");
    expect(text).toContain(report.reference);
    expect(text).toContain("Pothole by the war memorial");
    // The place in words, and a link to the reporter's first photo (its derived small size): no image in the mail.
    expect(text).toMatch(/Where: (?!Not given)\S/);
    const photo = await db()
      .selectFrom("report_photos")
      .select("hash")
      .where("report_id", "=", report.id)
      .executeTakeFirstOrThrow();
    expect(text).toContain(`http://civic.test/photos/${photo.hash}-thumb.jpg`);
    expect(mail.parsed.html).not.toMatch(/<img/i);
    expect(mail.raw).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  });

  it("yes: the report is fixed by its reporter with a public update; the link cannot be used again", async () => {
    const report = await newReport("yes@example.org");
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    const { yes, no } = await linksIn("yes@example.org");

    // Opening the link changes nothing (mail scanners open links).
    const page = await h.app.inject({ method: "GET", url: yes });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Yes, fixed");
    expect(page.body).toContain(report.reference);
    expect(await statusOf(report.id)).toBe("open");

    const done = await answer(yes, "Filled in last Tuesday.");
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Thank you");
    expect(await statusOf(report.id)).toBe("fixed");
    const row = await db()
      .selectFrom("report_updates")
      .selectAll()
      .where("report_id", "=", report.id)
      .where("event", "=", "questionnaire")
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ author_kind: "reporter", status: "fixed", previous_status: "open", internal: 0 });
    expect(row.note).toBe("The reporter says this is fixed. Filled in last Tuesday.");
    const publicPage = await h.app.inject({ method: "GET", url: `/reports/${report.reference}` });
    expect(publicPage.body).toContain("The reporter says this is fixed. Filled in last Tuesday.");
    expect(publicPage.body).not.toContain("yes@example.org");

    // Used: neither page nor button works again, whichever answer; a replayed post records nothing.
    for (const path of [yes, no]) {
      expect((await h.app.inject({ method: "GET", url: path })).statusCode).toBe(410);
    }
    const replay = await h.app.inject({
      method: "POST",
      url: no,
      headers: FORM,
      payload: new URLSearchParams({ _csrf: tokenIn(page.body), comment: "again" }).toString(),
    });
    expect(replay.statusCode).toBe(410);
    expect(replay.body).toContain("used already");
    expect(await statusOf(report.id)).toBe("fixed");

    // A report its reporter says is fixed is not asked about again.
    h.advance(40 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("yes@example.org")).toHaveLength(1);
  });

  it("a round after staff mark it fixed; no: the report is reopened with a public update", async () => {
    const report = await newReport("staff-fixed@example.org");
    h.advance(2 * DAY);
    await recordReportEvent(db(), { civic: null, now: h.app.civic.now(), by: "staff", accountId: null }, report.id, {
      kind: "status",
      to: "fixed",
      note: "Resurfaced.",
    });
    h.advance(27 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("staff-fixed@example.org")).toHaveLength(0);
    h.advance(2 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("staff-fixed@example.org")).toHaveLength(1);
    const { no, text } = await linksIn("staff-fixed@example.org");
    expect(text).toContain("Status now: Fixed");

    const done = await answer(no, "");
    expect(done.statusCode).toBe(200);
    expect(await statusOf(report.id)).toBe("open");
    const last = await db()
      .selectFrom("report_updates")
      .selectAll()
      .where("report_id", "=", report.id)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(last).toMatchObject({
      event: "questionnaire",
      action: "not-fixed",
      status: "open",
      previous_status: "fixed",
    });
    expect(last.note).toBe("The reporter says this is still a problem.");

    // Reopened: a new round QUESTIONNAIRE_AFTER_DAYS later.
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("staff-fixed@example.org")).toHaveLength(2);

    // Closed by staff: nobody is asked.
    const closed = await newReport("closed@example.org");
    await recordReportEvent(db(), { civic: null, now: h.app.civic.now(), by: "staff", accountId: null }, closed.id, {
      kind: "status",
      to: "closed",
      note: "Private land.",
    });
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("closed@example.org")).toHaveLength(0);
  });

  it("a hidden report gets no mail, and its link answers with a clear message", async () => {
    const hidden = await newReport("hidden@example.org");
    const later = await newReport("hidden-later@example.org");
    await recordReportEvent(db(), { civic: null, now: h.app.civic.now(), by: "staff", accountId: null }, hidden.id, {
      kind: "moderation",
      action: "hide",
    });
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    expect(await asked("hidden@example.org")).toHaveLength(0);
    expect(await asked("hidden-later@example.org")).toHaveLength(1);

    const { yes } = await linksIn("hidden-later@example.org");
    const page = await h.app.inject({ method: "GET", url: yes });
    expect(page.statusCode).toBe(200);
    await recordReportEvent(db(), { civic: null, now: h.app.civic.now(), by: "staff", accountId: null }, later.id, {
      kind: "moderation",
      action: "hide",
    });
    expect((await h.app.inject({ method: "GET", url: yes })).statusCode).toBe(410);
    const post = await h.app.inject({
      method: "POST",
      url: yes,
      headers: FORM,
      payload: new URLSearchParams({ _csrf: tokenIn(page.body), comment: "" }).toString(),
    });
    expect(post.statusCode).toBe(404);
    expect(post.body).toContain("no longer shown to the public");
    expect(await statusOf(later.id)).toBe("open");
  });

  it("refuses forged, expired and hostile input with a clear 4xx, never a 5xx", async () => {
    const report = await newReport("hostile@example.org");
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    const { yes } = await linksIn("hostile@example.org");
    const page = await h.app.inject({ method: "GET", url: yes });
    let csrf = tokenIn(page.body);
    const post = (url: string, fields: Record<string, string>) =>
      h.app.inject({
        method: "POST",
        url,
        headers: FORM,
        payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });

    // Forged tokens and answers.
    const forged = `/reports/fixed/yes/${"A".repeat(43)}`;
    for (const url of [forged, "/reports/fixed/no/short", `/reports/fixed/yes/${"x".repeat(300)}`]) {
      const get = await h.app.inject({ method: "GET", url });
      expect(get.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(get.statusCode, url).toBeLessThan(500);
      const res = await post(url, { comment: "" });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    expect((await h.app.inject({ method: "GET", url: forged })).body).toContain("not valid");
    const maybe = await post(yes.replace("/yes/", "/maybe/"), { comment: "" });
    expect([400, 404]).toContain(maybe.statusCode);

    // Huge text: the page again with the problem; the link stays usable.
    const huge = await post(yes, { comment: "x".repeat(5_000) });
    expect(huge.statusCode).toBe(400);
    expect(huge.body).toContain("at most 1000 characters");
    expect(huge.body).toContain('href="#questionnaire-comment"');
    // Control characters are refused before the route (the app's text rule).
    const control = await post(yes, { comment: "fixed\u0000\u0007" });
    expect(control.statusCode).toBe(400);
    const json = await h.app.inject({
      method: "POST",
      url: yes,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ _csrf: csrf, comment: { nested: true } }),
    });
    expect(json.statusCode).toBeGreaterThanOrEqual(400);
    expect(json.statusCode).toBeLessThan(500);
    expect(await statusOf(report.id)).toBe("open");

    // Expired after its weeks.
    h.advance(57 * DAY);
    expect((await h.app.inject({ method: "GET", url: yes })).statusCode).toBe(410);
    csrf = tokenIn((await h.app.inject({ method: "GET", url: "/alerts" })).body);
    expect((await post(yes, { comment: "" })).statusCode).toBe(410);
    expect(await statusOf(report.id)).toBe("open");
  });

  it("lists the questionnaire rounds and answers in the data download and erases them", async () => {
    const report = await newReport("mine@example.org");
    h.advance(29 * DAY);
    await sendQuestionnaires(h.app.civic);
    const { yes } = await linksIn("mine@example.org");
    expect((await answer(yes, "All good now.")).statusCode).toBe(200);

    const source = personalDataSources(h.app.civic).find((s) => s.key === "reportQuestionnaires")!;
    const ctx = sourceContext(h.app.civic);
    const subject = { accountId: null, email: "mine@example.org" };
    const collected = await source.collect(ctx, subject);
    expect(collected.data).toEqual([
      expect.objectContaining({
        report: report.reference,
        answer: "Yes, fixed",
        publishedAs: "The reporter says this is fixed. All good now.",
      }),
    ]);
    await db()
      .transaction()
      .execute(async (tx) => {
        for (const s of personalDataSources(h.app.civic)) {
          await s.erase({ ...ctx, db: tx }, subject, { removePublicContent: false });
        }
      });
    expect(
      await db().selectFrom("report_questionnaires").selectAll().where("report_id", "=", report.id).execute(),
    ).toHaveLength(0);
    const answers = await db()
      .selectFrom("report_updates")
      .select(["author_email", "author_account_id"])
      .where("report_id", "=", report.id)
      .where("event", "=", "questionnaire")
      .execute();
    expect(answers).toEqual([{ author_email: null, author_account_id: null }]);
    expect(await db().selectFrom("email_links").selectAll().where("email", "=", "mine@example.org").execute()).toEqual(
      [],
    );
  });
});
