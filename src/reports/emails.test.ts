import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { startTestSmtp, type TestSmtp } from "../../test/helpers/smtp.js";
import { smtpTransport } from "../core/mail/transport.js";
import { OutboxWorker } from "../core/mail/worker.js";
import { submitReport } from "./submit.js";

describeEachDb("report emails", (dialect) => {
  let t: TestApp;
  let smtp: TestSmtp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    smtp = await startTestSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
    await t?.close();
  });

  it("keeps the sender's text out of every subject: a stranger's address cannot get a message of our choosing", async () => {
    const spam = "WIN A PRIZE at scam.example now";
    const created = await submitReport(t.app.civic, {
      categoryCode: "pothole",
      title: spam,
      description: `${spam}. Call +44 0000 000000.`,
      lat: 50.9862,
      lng: -2.0437,
      locationText: null,
      placeId: null,
      addressId: null,
      attributes: { road_or_pavement: "road" },
      photos: [],
      mediaUrl: null,
      reporter: { email: "victim@example.org", name: "Prize Desk", phone: null, shareContact: true },
      deviceId: null,
      accountId: null,
      source: "web",
      apiKeyId: null,
    });
    const worker = new OutboxWorker({
      db: t.app.civic.database.db,
      transport: smtpTransport(smtp.url),
      from: "Platform <no-reply@civic.test>",
      now: () => new Date(),
    });
    expect(await worker.runOnce()).toBe(2);
    await worker.stop();
    const subjects = smtp.received.map((m) => m.parsed.subject ?? "");
    expect(subjects.sort()).toEqual([`New report ${created.reference} (Pothole)`, `Your report ${created.reference}`]);
    for (const s of subjects) expect(s).not.toMatch(/prize|scam|Prize Desk/i);
  });
});
