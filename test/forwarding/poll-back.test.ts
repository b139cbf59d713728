import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { JobRunner } from "../../src/core/jobs/runner.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { createApiKey } from "../../src/open311/keys.js";
import { councilPollJob, pollCouncils } from "../../src/reports/council-poll.js";
import { recordReportEvent } from "../../src/reports/events.js";
import { sendDueForwardings } from "../../src/reports/forward.js";
import type { ReportStatus } from "../../src/core/db/schema.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { startTestSmtp, type TestSmtp } from "../helpers/smtp.js";
import { deliverStreetlightsTo, freePort, postReport, Relay } from "./support.js";
import { staffHtml } from "./staff-view.js";

/**
 * Bringing the council's answers back: a second instance of this platform plays the council (its own database,
 * API key and staff). A status change its staff make reaches the first instance by polling, within two polling
 * intervals: on the public page ("Update from the council"), in the Atom feed, in the Open311 output, and in a mail
 * to the reporter over real SMTP. Polled twice or by two instances, it is recorded and mailed once; an unchanged
 * answer is a 304.
 */
describeEachDb("bringing a council's answers back", (dialect) => {
  const POLL_SECONDS = 2;
  let council: TestApp;
  let first: TestApp;
  let relay: Relay;
  let smtp: TestSmtp;
  let ourKey: string;
  let reference: string;
  let councilReference: string;
  let connections = 0;

  const db = () => first.app.civic.database.db;
  const councilUpdates = async () =>
    (
      await db()
        .selectFrom("report_updates")
        .innerJoin("reports", "reports.id", "report_updates.report_id")
        .select(["report_updates.note", "report_updates.status", "report_updates.event"])
        .where("reports.reference", "=", reference)
        .where("report_updates.author_kind", "=", "council")
        .orderBy("report_updates.id")
        .execute()
    ).map((u) => ({ ...u }));
  const ourStatus = async () =>
    (await db().selectFrom("reports").select("status").where("reference", "=", reference).executeTakeFirstOrThrow())
      .status;
  const waitUntil = async (ok: () => boolean) => {
    const started = Date.now();
    while (!ok()) {
      if (Date.now() - started > 10_000) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const mailsTo = (to: string) => smtp.received.filter((m) => m.to.includes(to));
  const deliverMail = async () => {
    const worker = first.app.civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;
    await worker.runOnce();
  };

  /** The council's staff change its copy's status with a public note (the council's own one path). */
  async function councilStaffSay(to: ReportStatus, note: string) {
    const cdb = council.app.civic.database.db;
    const copy = await cdb
      .selectFrom("reports")
      .select("id")
      .where("reference", "=", councilReference)
      .executeTakeFirstOrThrow();
    await recordReportEvent(cdb, { civic: council.app.civic, now: new Date(), by: "staff", accountId: null }, copy.id, {
      kind: "status",
      to,
      note,
    });
  }

  beforeAll(async () => {
    smtp = await startTestSmtp();
    council = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_WRITE_MAX: "1000", RATE_LIMIT_READ_MAX: "10000" },
    });
    await council.app.listen({ port: 0, host: "127.0.0.1" });
    const councilPort = (council.app.server.address() as { port: number }).port;
    const councilKey = (await createApiKey(council.app.civic.database.db, "Village platform", new Date())).key;
    relay = new Relay(await freePort(), councilPort);
    relay.onConnection = () => connections++;
    await relay.start();

    const port = await freePort();
    first = await createTestApp(dialect, {
      seed: true,
      env: {
        BASE_URL: `http://village.example.org:${port}`,
        RATE_LIMIT_WRITE_MAX: "1000",
        FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
        FORWARDING_TIMEOUT_SECONDS: "2",
        OPEN311_POLL_SECONDS: String(POLL_SECONDS),
        SMTP_URL: smtp.url,
      },
    });
    await first.app.listen({ port, host: "127.0.0.1" });
    ourKey = (await createApiKey(db(), "Test client", new Date())).key;
    await deliverStreetlightsTo(first.app, `http://127.0.0.1:${relay.port}/api/v2/`, councilKey);
    reference = await postReport(first.app, ourKey, "The lamp outside the school is dark.");
    expect(await sendDueForwardings(first.app.civic)).toMatchObject({ sent: 1 });
    const row = await db().selectFrom("report_forwardings").selectAll().executeTakeFirstOrThrow();
    councilReference = row.service_request_id as string;
    expect(councilReference).toBeTruthy();
  });
  afterAll(async () => {
    await relay?.stop();
    await first?.close();
    await council?.close();
    await smtp?.close();
  });

  it("a status change by the council's staff shows on the public page, feed and Open311 output within two intervals, and is mailed", async () => {
    const runner = new JobRunner({
      db: db(),
      jobs: [councilPollJob(first.app.civic)],
      now: () => new Date(),
      pollMs: 50,
    });
    runner.start();
    try {
      // The first round sees the council's copy as it is: open, nothing new.
      const started = Date.now();
      while (!(await db().selectFrom("report_forwardings").select("synced_at").executeTakeFirstOrThrow()).synced_at) {
        if (Date.now() - started > 5000) throw new Error("no first poll");
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(await councilUpdates()).toEqual([]);
      expect(await ourStatus()).toBe("open");

      await councilStaffSay("fixed", "We replaced the lamp's bulb this morning.");
      const changed = Date.now();
      while ((await ourStatus()) !== "fixed") {
        expect(Date.now() - changed, "the change arrives within two polling intervals").toBeLessThan(
          2 * POLL_SECONDS * 1000,
        );
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await runner.stop();
    }
    expect(await councilUpdates()).toEqual([
      { note: "We replaced the lamp's bulb this morning.", status: "fixed", event: "status" },
    ]);

    const page = await first.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(page.body).toContain("Update from the council");
    expect(page.body).toContain("We replaced the lamp's bulb this morning.");
    // The "where it went" block: the last sync and the council's last status, in its own word.
    expect(page.body).toMatch(/Last sync <time[^>]*>[^<]+<\/time>: the council's status “closed”\./);
    expect(await staffHtml(first, reference)).toMatch(
      /Last sync <time[^>]*>[^<]+<\/time>: the council's status “closed”\./,
    );

    const feed = await first.app.inject({ method: "GET", url: "/reports.atom" });
    expect(feed.body).toContain("Update from the council");
    expect(feed.body).toContain("We replaced the lamp&apos;s bulb this morning.");

    const open311 = await first.app.inject({ method: "GET", url: `/api/v2/requests/${reference}.json` });
    expect(open311.json()).toMatchObject([
      { service_request_id: reference, status: "closed", status_notes: "We replaced the lamp's bulb this morning." },
    ]);

    const about = (words: string) =>
      mailsTo("resident@example.org").filter((m) => (m.parsed.text ?? "").includes(words));
    await deliverMail();
    await waitUntil(() => about("We replaced the lamp's bulb this morning.").length > 0);
    const mail = about("We replaced the lamp's bulb this morning.");
    expect(mail).toHaveLength(1);
    expect(mail[0]?.parsed.text).toContain("Fixed");
  });

  it("an unchanged answer is a 304: one request, nothing recorded", async () => {
    const before = connections;
    const figures = await pollCouncils(first.app.civic);
    expect(figures).toMatchObject({ departments: 1, asked: 1, unchanged: 1, updates: 0, failed: 0 });
    expect(connections - before).toBe(1);
    expect(await councilUpdates()).toHaveLength(1);
  });

  it("polled twice, and by two instances at once, a council update is recorded and mailed once", async () => {
    const second = await buildApp(first.config, { logger: false, database: first.db.reopen() });
    await second.ready();
    try {
      await councilStaffSay("open", "Reopened: the new bulb failed overnight.");
      const results = await Promise.all([pollCouncils(first.app.civic), pollCouncils(second.civic)]);
      expect(results.reduce((n, r) => n + r.updates, 0)).toBe(1);
      expect(await pollCouncils(first.app.civic)).toMatchObject({ updates: 0 });
      expect(await pollCouncils(second.civic)).toMatchObject({ updates: 0 });
      const updates = await councilUpdates();
      expect(updates).toHaveLength(2);
      expect(updates[1]).toEqual({ note: "Reopened: the new bulb failed overnight.", status: "open", event: "status" });
      expect(await ourStatus()).toBe("open");
      const about = () =>
        mailsTo("resident@example.org").filter((m) => (m.parsed.text ?? "").includes("the new bulb failed overnight"));
      await deliverMail();
      await waitUntil(() => about().length > 0);
      await deliverMail();
      await new Promise((r) => setTimeout(r, 200));
      expect(about()).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it("forwarded again (the same council request), the new forwarding shows the council's last status; nothing is recorded twice", async () => {
    const { id } = await db()
      .selectFrom("reports")
      .select("id")
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    const { forwardReport } = await import("../../src/reports/forward.js");
    await db()
      .transaction()
      .execute((tx) => forwardReport(first.app.civic, tx, id, new Date()));
    expect(await sendDueForwardings(first.app.civic)).toMatchObject({ sent: 1 });
    const before = (await councilUpdates()).length;
    expect(await pollCouncils(first.app.civic)).toMatchObject({ unchanged: 1, updates: 0, failed: 0 });
    expect(await councilUpdates()).toHaveLength(before);
    const rows = await db()
      .selectFrom("report_forwardings")
      .select(["service_request_id", "council_status", "sync_error"])
      .where("report_id", "=", id)
      .execute();
    expect(rows).toEqual([
      { service_request_id: councilReference, council_status: "open", sync_error: null },
      { service_request_id: councilReference, council_status: "open", sync_error: null },
    ]);
  });
});
