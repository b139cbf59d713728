import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import {
  alertJobs,
  alertNewReport,
  purgeAlerts,
  sendAlertDigests,
  sendNewReportAlerts,
} from "../../src/reports/alerts.js";
import { submitReport } from "../../src/reports/submit.js";
import { addBan } from "../../src/moderation/ban-list.js";
import { type AccountsHarness, accountsHarness, tokenIn, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { hasJava, nuErrors } from "../helpers/nu.js";

const DAY = 24 * 60 * 60_000;

/**
 * "Email me about new reports" (issue 35): double opt-in by a POST from the page the link opens, one mail per new
 * public report per matching alert (once, even from two instances), RFC 8058 one-click unsubscribe, a daily digest
 * once a day, and the alerts in the personal-data download and erasure.
 */
describeEachDb("alerts for new reports", (dialect) => {
  let h: AccountsHarness;
  const db = () => h.app.civic.database.db;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  /** Opens /alerts as an anonymous visitor, waits like a person and sends the form. */
  async function subscribe(fields: Record<string, string>, wait = 4_000) {
    const page = await h.app.inject({ method: "GET", url: "/alerts" });
    expect(page.statusCode).toBe(200);
    const csrf = tokenIn(page.body);
    h.advance(wait);
    return h.app.inject({
      method: "POST",
      url: "/alerts",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: csrf, website: "", ...fields }).toString(),
    });
  }

  /** Subscribes and confirms by the emailed link's page and its button. */
  async function subscribeAndConfirm(fields: Record<string, string> & { email: string }) {
    const res = await subscribe(fields);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Check your email");
    const mail = await h.mailTo(fields.email);
    const link = /http:\/\/civic\.test(\/alerts\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "");
    expect(link).not.toBeNull();
    const page = await h.app.inject({ method: "GET", url: link![1]! });
    expect(page.statusCode).toBe(200);
    const row = await db().selectFrom("report_alerts").selectAll().where("email", "=", fields.email).executeTakeFirst();
    expect(row?.confirmed_at).toBeNull();
    const confirmed = await h.app.inject({
      method: "POST",
      url: link![1]!,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: tokenIn(page.body) }).toString(),
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain("Your alert is on");
    expect((await h.app.inject({ method: "GET", url: link![1]! })).statusCode).toBe(410);
  }

  async function newReport(o: { lat: number; lng: number; category?: string; title?: string; placeId?: string }) {
    return submitReport(h.app.civic, {
      categoryCode: o.category ?? "pothole",
      title: o.title ?? "Pothole on the corner",
      description: "Deep hole on the corner.",
      lat: o.lat,
      lng: o.lng,
      locationText: null,
      placeId: o.placeId ?? null,
      addressId: null,
      attributes: o.category && o.category !== "pothole" ? {} : { road_or_pavement: ["road"] },
      photos: [],
      mediaUrl: null,
      reporter: { email: "secret-reporter@example.org", name: "Rita Reporter", phone: null, shareContact: false },
      deviceId: null,
      accountId: null,
      source: "web",
      apiKeyId: null,
    });
  }

  const alertMails = async (to: string, kind = "report-alert") =>
    db().selectFrom("outbox").selectAll().where("kind", "=", kind).where("to_address", "=", to).execute();

  it("offers the form without JavaScript and refuses hostile input with 4xx", async () => {
    const page = await h.app.inject({ method: "GET", url: "/alerts" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Email me about new reports");
    expect(page.body).toContain('action="/alerts"');
    const list = await h.app.inject({ method: "GET", url: "/reports" });
    expect(list.body).toContain('href="/alerts"');
    const reference = /href="\/reports\/([A-Z0-9]{4}-[A-Z0-9]{4})"/.exec(list.body)![1]!;
    const reportPage = await h.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(reportPage.body).toMatch(/href="\/alerts\?scope=(near|category)&amp;[^"]+">Email me about new reports/);
    const prefilled = await h.app.inject({ method: "GET", url: "/alerts?scope=street&street=high-street" });
    expect(prefilled.body).toMatch(/<option value="high-street" selected/);
    expect((await h.app.inject({ method: "GET", url: "/alerts?scope=galaxy" })).statusCode).toBe(400);

    const hostile: Record<string, string>[] = [
      { email: "x@example.org", scope: "near", place: "War memorial", radius: "100000", frequency: "immediate" },
      { email: "x@example.org", scope: "near", place: "War memorial", radius: "NaN", frequency: "immediate" },
      { email: "x@example.org", scope: "near", place: "Nowhere at all", radius: "500", frequency: "immediate" },
      { email: "x@example.org", scope: "near", place: "War\u0000memorial", radius: "500", frequency: "immediate" },
      { email: "x@example.org", scope: "street", street: "war-memorial", frequency: "immediate" },
      { email: "x@example.org", scope: "category", category: "no-such", frequency: "immediate" },
      { email: "x@example.org", scope: "galaxy", frequency: "immediate" },
      { email: "x@example.org", scope: "village", frequency: "hourly" },
      { email: "not an address", scope: "village", frequency: "immediate" },
    ];
    for (const fields of hostile) {
      const res = await subscribe(fields);
      expect(res.statusCode, JSON.stringify(fields)).toBe(400);
    }
    // The form with its errors is valid HTML too (the pages themselves are in test/foundation/html-valid.test.ts).
    if (hasJava && dialect === "sqlite") {
      const withErrors = await subscribe({ email: "", scope: "near", place: "Chruch", radius: "7", frequency: "" });
      expect(withErrors.body).toContain("Church Lane");
      expect(await nuErrors(new Map([["/alerts with errors", withErrors.body]]))).toEqual([]);
    }
    const json = await h.app.inject({
      method: "POST",
      url: "/alerts",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ email: ["x@example.org"], radius: { a: 1 } }),
    });
    expect(json.statusCode).toBeGreaterThanOrEqual(400);
    expect(json.statusCode).toBeLessThan(500);
    expect(await db().selectFrom("report_alerts").selectAll().execute()).toHaveLength(0);
  });

  it("confirms only by the button (POST); mails a matching new public report once, with one-click unsubscribe", async () => {
    await subscribeAndConfirm({
      email: "near@example.org",
      scope: "near",
      place: "war memorial",
      radius: "200",
      frequency: "immediate",
    });
    await subscribeAndConfirm({
      email: "street@example.org",
      scope: "street",
      street: "high-street",
      frequency: "immediate",
    });
    await subscribeAndConfirm({
      email: "shelters@example.org",
      scope: "category",
      category: "bus_shelter",
      frequency: "immediate",
    });

    h.advance(1_000);
    const near = await newReport({ lat: 50.9866, lng: -2.0441, title: "Pothole by the memorial" });
    const far = await newReport({ lat: 50.9925, lng: -2.042, title: "Pothole on Downs Road" });
    await sendNewReportAlerts(h.app.civic);
    await sendNewReportAlerts(h.app.civic); // a second run sends nothing again

    const toNear = await alertMails("near@example.org");
    expect(toNear).toHaveLength(1);
    expect(toNear[0]!.subject).toContain(near.reference);
    expect(toNear[0]!.text_body).toContain("Pothole by the memorial");
    expect(toNear[0]!.text_body).toContain("Pothole");
    expect(toNear[0]!.text_body).toContain("War memorial");
    expect(toNear[0]!.text_body).not.toContain("secret-reporter");
    expect(toNear[0]!.text_body).not.toContain("Rita");
    expect(toNear[0]!.text_body).not.toContain(far.reference);
    expect(await alertMails("street@example.org")).toHaveLength(1);
    expect(await alertMails("shelters@example.org")).toHaveLength(0);

    const mail = await h.mailTo("near@example.org");
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, " ");
    const header = /^List-Unsubscribe: <(https?:\/\/[^>]+)>\r?$/m.exec(unfolded)![1]!;
    const path = new URL(header).pathname;
    expect(path).toMatch(/^\/alerts\/unsubscribe\//);

    const shown = await h.app.inject({ method: "GET", url: path });
    expect(shown.statusCode).toBe(200);
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "near@example.org").execute(),
    ).toHaveLength(1);
    const forged = await h.app.inject({
      method: "POST",
      url: `${path.slice(0, -3)}AAA`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(forged.statusCode).toBe(404);
    const stop = await h.app.inject({
      method: "POST",
      url: path,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(stop.statusCode).toBe(200);
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "near@example.org").execute(),
    ).toHaveLength(0);

    h.advance(1_000);
    await newReport({ lat: 50.9866, lng: -2.0441 });
    await sendNewReportAlerts(h.app.civic);
    expect(await alertMails("near@example.org")).toHaveLength(1);
    expect(await alertMails("street@example.org")).toHaveLength(2);
  });

  it("offers the same choices as an Atom feed, bounded", async () => {
    const near = await h.app.inject({ method: "GET", url: "/reports.atom?near=War+memorial&radius=200" });
    expect(near.statusCode).toBe(200);
    expect(near.headers["content-type"]).toContain("application/atom+xml");
    expect(near.body).toContain("Pothole by the memorial");
    expect(near.body).not.toContain("Pothole on Downs Road");
    expect(near.body).toContain("within 200 m of War memorial");
    expect(near.body).toContain("reports.atom?near=War+memorial&amp;radius=200");
    const street = await h.app.inject({ method: "GET", url: "/reports.atom?street=high-street&category=pothole" });
    expect(street.statusCode).toBe(200);
    expect(street.body).toContain("Pothole by the memorial");
    expect(street.body).not.toContain("Pothole on Downs Road");
    for (const [url, status] of [
      ["/reports.atom?near=War+memorial&radius=100000", 400],
      ["/reports.atom?near=War+memorial&radius=NaN", 400],
      ["/reports.atom?near=War+memorial&radius=300", 400],
      ["/reports.atom?radius=500", 400],
      ["/reports.atom?near=War+memorial&street=high-street", 400],
      ["/reports.atom?near=Nowhere+at+all", 404],
      ["/reports.atom?street=war-memorial", 404],
      [`/reports.atom?near=${"x".repeat(500)}`, 400],
    ] as const) {
      expect((await h.app.inject({ method: "GET", url })).statusCode, url).toBe(status);
    }
    const nul = await h.app.inject({ method: "GET", url: "/reports.atom?near=War%00memorial" });
    expect(nul.statusCode).toBeGreaterThanOrEqual(400);
    expect(nul.statusCode).toBeLessThan(500);
  });

  it("never alerts a report that moderation keeps from the public", async () => {
    await subscribeAndConfirm({ email: "all@example.org", scope: "village", frequency: "immediate" });
    h.advance(1_000);
    // Stored hidden (its sender is banned): no alert as it is submitted, nor from the job.
    await addBan(db(), { pattern: "secret-reporter@example.org", reason: "test", by: null }, h.app.civic.now());
    const banned = await newReport({ lat: 50.9866, lng: -2.0441, title: "Banned one" });
    await db().deleteFrom("banned_senders").execute();
    expect(
      (await db().selectFrom("reports").select("visibility").where("id", "=", banned.id).executeTakeFirst())
        ?.visibility,
    ).toBe("hidden");
    await sendNewReportAlerts(h.app.civic);
    expect(await alertMails("all@example.org")).toHaveLength(0);
  });

  it("mails a new public report's immediate alerts as it is submitted, without waiting for the minute job", async () => {
    h.advance(1_000);
    const before = (await alertMails("all@example.org")).length;
    const started = Date.now();
    const report = await newReport({ lat: 50.9866, lng: -2.0441, title: "Alerted at once" });
    const mails = await alertMails("all@example.org");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(mails).toHaveLength(before + 1);
    expect(mails.at(-1)!.subject).toContain(report.reference);
    await sendNewReportAlerts(h.app.civic); // the job finds it done
    expect(await alertMails("all@example.org")).toHaveLength(before + 1);
    expect(
      await db().selectFrom("report_alert_scans").selectAll().where("report_id", "=", report.id).execute(),
    ).toHaveLength(1);
  });

  it("two app instances sharing one database still queue one mail per report and alert", async () => {
    h.advance(1_000);
    const report = await newReport({ lat: 50.9866, lng: -2.0441, title: "Seen by two processes" });
    // As if the process that stored it had stopped before queuing its alerts: the jobs of two others find it.
    await db().deleteFrom("outbox").where("subject", "like", `%${report.reference}%`).execute();
    await db().deleteFrom("report_alert_sends").where("report_id", "=", report.id).execute();
    await db().deleteFrom("report_alert_scans").where("report_id", "=", report.id).execute();
    const second = await buildApp(h.t.config, {
      logger: false,
      database: h.t.db.reopen(),
      now: () => h.app.civic.now(),
    });
    const third = await buildApp(h.t.config, {
      logger: false,
      database: h.t.db.reopen(),
      now: () => h.app.civic.now(),
    });
    await Promise.all([second.ready(), third.ready()]);
    try {
      if (dialect === "postgres") {
        await Promise.all([
          sendNewReportAlerts(second.civic),
          sendNewReportAlerts(third.civic),
          alertNewReport(second.civic, report.id),
        ]);
      } else {
        await sendNewReportAlerts(second.civic);
        await sendNewReportAlerts(third.civic);
      }
    } finally {
      await second.close();
      await third.close();
    }
    const mails = (await alertMails("all@example.org")).filter((m) => m.subject.includes(report.reference));
    expect(mails).toHaveLength(1);
  });

  it("sends the daily digest once a day, listing the day's matching reports", async () => {
    await subscribeAndConfirm({ email: "daily@example.org", scope: "village", frequency: "daily" });
    h.advance(1_000);
    const a = await newReport({ lat: 50.9866, lng: -2.0441, title: "Digest one" });
    const b = await newReport({ lat: 50.9925, lng: -2.042, category: "bus_shelter", title: "Digest two" });
    await sendNewReportAlerts(h.app.civic);
    expect(await alertMails("daily@example.org")).toHaveLength(0);
    h.advance(DAY);
    await sendAlertDigests(h.app.civic);
    await sendAlertDigests(h.app.civic);
    const digests = await alertMails("daily@example.org", "report-alert-digest");
    expect(digests).toHaveLength(1);
    expect(digests[0]!.text_body).toContain(a.reference);
    expect(digests[0]!.text_body).toContain(b.reference);
    expect(JSON.parse(digests[0]!.headers!)).toMatchObject({ "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
  });

  it("lists alerts in the data download and erases them with the person's data", async () => {
    await subscribeAndConfirm({ email: "erase-me@example.org", scope: "village", frequency: "daily" });
    const source = personalDataSources(h.app.civic).find((s) => s.key === "reportAlerts")!;
    const ctx = sourceContext(h.app.civic);
    const subject = { accountId: null, email: "erase-me@example.org" };
    const collected = await source.collect(ctx, subject);
    expect(collected.data).toEqual([
      expect.objectContaining({ email: "erase-me@example.org", area: "The whole village", frequency: "daily" }),
    ]);
    expect(await source.consents!(ctx, subject)).toHaveLength(1);
    await source.erase(ctx, subject, { removePublicContent: false });
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "erase-me@example.org").execute(),
    ).toHaveLength(0);
  });

  it("forgets unconfirmed alerts after 30 days and sent markers after 7, and runs as two leased jobs", async () => {
    expect(alertJobs(h.app.civic).map((j) => j.name)).toEqual(["report-alerts", "report-alert-digests"]);
    const res = await subscribe({ email: "never-confirmed@example.org", scope: "village", frequency: "daily" });
    expect(res.statusCode).toBe(200);
    const sends = async () => (await db().selectFrom("report_alert_sends").selectAll().execute()).length;
    expect(await sends()).toBeGreaterThan(0);
    await purgeAlerts(db(), h.app.civic.now());
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "never-confirmed@example.org").execute(),
    ).toHaveLength(1);
    await purgeAlerts(db(), new Date(h.app.civic.now().getTime() + 31 * DAY));
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "never-confirmed@example.org").execute(),
    ).toHaveLength(0);
    expect(await sends()).toBe(0);
    expect(
      await db().selectFrom("report_alerts").selectAll().where("email", "=", "all@example.org").execute(),
    ).toHaveLength(1);
    const links = await db()
      .selectFrom("email_links")
      .select("id")
      .where("purpose", "=", "report-alert")
      .where("email", "=", "never-confirmed@example.org")
      .execute();
    expect(links).toHaveLength(0);
  });

  it("files a signed-in resident's alert under their account's address, not a typed one", async () => {
    const visitor = new Visitor(h.app);
    await visitor.signIn(h, "resident@example.org");
    const page = await visitor.get("/alerts");
    expect(page.body).not.toContain('name="email"');
    // The page says where alerts go without showing the address: it reflects request text (length oracle).
    expect(page.body).toContain("account’s email address");
    expect(page.body).not.toContain("resident@example.org");
    h.advance(4_000);
    const res = await visitor.post("/alerts", {
      _csrf: tokenIn(page.body),
      website: "",
      email: "someone-else@example.org",
      scope: "village",
      frequency: "immediate",
    });
    expect(res.statusCode).toBe(200);
    const rows = await db().selectFrom("report_alerts").select("email").where("scope", "=", "village").execute();
    expect(rows.map((r) => r.email)).toContain("resident@example.org");
    expect(rows.map((r) => r.email)).not.toContain("someone-else@example.org");
  });
});
