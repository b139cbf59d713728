import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../../../test/helpers/app.js";
import { enqueueMail } from "./outbox.js";
import { isSuppressed } from "./suppressions.js";
import { type ReceivedMail, startTestSmtp, type TestSmtp } from "../../../test/helpers/smtp.js";
import { fileTransport, smtpTransport } from "./transport.js";
import { claimMessage, MAX_ATTEMPTS, OutboxWorker, retryDelayMs } from "./worker.js";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A clock the test moves by hand. */
function clock(start = "2026-11-22T12:00:00.000Z") {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

const FROM = "Wrenford Platform <no-reply@civic.test>";

async function enqueue(db: TestDatabase, n: number, at: Date) {
  for (let i = 0; i < n; i++) {
    await enqueueMail(
      db.database.db,
      {
        kind: "test",
        to: `person${i}@example.org`,
        subject: `Message ${i}`,
        text: `Body ${i}`,
        html: `<p>Body ${i}</p>`,
        domain: "civic.test",
      },
      at,
    );
  }
}

function subjects(received: ReceivedMail[]) {
  return received.map((m) => m.parsed.subject).sort();
}

it("backs off 30 s, 1, 2, 4 … minutes, capped at an hour", () => {
  expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
  expect(retryDelayMs(40)).toBe(3_600_000);
});

describeEachDb("mail outbox worker", (dialect) => {
  let db: TestDatabase;
  let smtp: TestSmtp | null = null;
  beforeEach(async () => {
    db = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await smtp?.close();
    smtp = null;
    await db.cleanup();
  });

  it("keeps messages while the SMTP server is down and delivers each once when it is back", async () => {
    const c = clock();
    const port = await freePort();
    await enqueue(db, 3, c.now());
    const worker = new OutboxWorker({
      db: db.database.db,
      transport: smtpTransport(`smtp://127.0.0.1:${port}`),
      from: FROM,
      now: c.now,
    });

    expect(await worker.runOnce()).toBe(0);
    let rows = await db.database.db.selectFrom("outbox").selectAll().orderBy("id").execute();
    expect(rows.every((r) => r.sent_at === null && r.attempts === 1 && r.locked_until === null)).toBe(true);
    expect(rows[0]?.last_error).toMatch(/ECONNREFUSED/);
    expect(rows[0]?.last_error).not.toContain("person0@example.org");
    expect(rows[0]?.next_attempt_at).toBe("2026-11-22T12:00:30.000Z");

    // Not due yet: nothing is tried.
    c.advance(10_000);
    expect(await worker.runOnce()).toBe(0);
    expect((await db.database.db.selectFrom("outbox").select("attempts").executeTakeFirstOrThrow()).attempts).toBe(1);

    smtp = await startTestSmtp(port);
    c.advance(30_000);
    expect(await worker.runOnce()).toBe(3);
    expect(subjects(smtp.received)).toEqual(["Message 0", "Message 1", "Message 2"]);
    expect(smtp.received[0]?.parsed.text?.trim()).toBe("Body 0");
    expect(smtp.received[0]?.parsed.html).toContain("<p>Body 0</p>");
    rows = await db.database.db.selectFrom("outbox").selectAll().orderBy("id").execute();
    expect(rows.every((r) => r.sent_at !== null && r.attempts === 2 && r.last_error === null)).toBe(true);
    expect(smtp.received.map((m) => m.parsed.messageId).sort()).toEqual(rows.map((r) => r.message_id).sort());

    // Nothing is sent twice.
    c.advance(3_600_000);
    expect(await worker.runOnce()).toBe(0);
    expect(smtp.received).toHaveLength(3);
    await worker.stop();
  });

  it("survives a restart mid-queue: a claim left by a crashed process expires and each message arrives once", async () => {
    const c = clock();
    smtp = await startTestSmtp();
    await enqueue(db, 5, c.now());
    // The "crashed" process had claimed the first message and died before sending it.
    const ids = (await db.database.db.selectFrom("outbox").select("id").orderBy("id").execute()).map((r) => r.id);
    expect(await claimMessage(db.database.db, ids[0] as number, c.now(), 120_000)).not.toBeNull();
    // A second claim on a held message fails: only one worker holds it.
    expect(await claimMessage(db.database.db, ids[0] as number, c.now(), 120_000)).toBeNull();

    // The new process (another connection) sends everything else at once.
    const reopened = db.reopen();
    const worker = new OutboxWorker({ db: reopened.db, transport: smtpTransport(smtp.url), from: FROM, now: c.now });
    expect(await worker.runOnce()).toBe(4);
    expect(subjects(smtp.received)).toEqual(["Message 1", "Message 2", "Message 3", "Message 4"]);

    // After the lock expires, the abandoned message is sent too, once.
    c.advance(121_000);
    expect(await worker.runOnce()).toBe(1);
    c.advance(3_600_000);
    expect(await worker.runOnce()).toBe(0);
    expect(subjects(smtp.received)).toEqual(["Message 0", "Message 1", "Message 2", "Message 3", "Message 4"]);
    await worker.stop();
    await reopened.close();
  });

  it("delivers each message once when two workers run at the same time", async () => {
    const c = clock();
    smtp = await startTestSmtp();
    await enqueue(db, 12, c.now());
    const second = db.reopen();
    const a = new OutboxWorker({ db: db.database.db, transport: smtpTransport(smtp.url), from: FROM, now: c.now });
    const b = new OutboxWorker({ db: second.db, transport: smtpTransport(smtp.url), from: FROM, now: c.now });
    const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(na + nb).toBe(12);
    expect(smtp.received).toHaveLength(12);
    expect(new Set(subjects(smtp.received)).size).toBe(12);
    await a.stop();
    await b.stop();
    await second.close();
  });

  it("sends by itself once started, stops cleanly, and starts again after a stop", async () => {
    smtp = await startTestSmtp();
    const worker = new OutboxWorker({
      db: db.database.db,
      transport: smtpTransport(smtp.url),
      from: FROM,
      now: () => new Date(),
      pollMs: 50,
    });
    worker.start();
    await enqueue(db, 2, new Date());
    await smtp.waitFor(2);
    await worker.stop();
    expect(smtp.received[0]?.parsed.from?.text).toContain("no-reply@civic.test");
    expect(smtp.received[0]?.parsed.headers.get("auto-submitted")).toBe("auto-generated");

    worker.start();
    await enqueue(db, 1, new Date());
    await smtp.waitFor(3);
    await worker.stop();
  });

  it("writes .eml files without SMTP, one per message even when written again", async () => {
    const c = clock();
    await enqueue(db, 2, c.now());
    const dir = join(db.dataDir, "mail");
    const worker = new OutboxWorker({ db: db.database.db, transport: fileTransport(dir), from: FROM, now: c.now });
    expect(await worker.runOnce()).toBe(2);
    const files = readdirSync(dir).filter((f) => f.endsWith(".eml"));
    expect(files).toHaveLength(2);
    const content = files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(content).toContain("Subject: Message 0");
    expect(content).toContain("To: person1@example.org");
    // Re-sending the same message (an unrecorded success) replaces its file.
    const row = await db.database.db.selectFrom("outbox").selectAll().orderBy("id").executeTakeFirstOrThrow();
    await fileTransport(dir).send({
      from: FROM,
      to: row.to_address,
      subject: row.subject,
      text: row.text_body,
      html: null,
      messageId: row.message_id,
      date: new Date(row.created_at),
    });
    expect(readdirSync(dir).filter((f) => f.endsWith(".eml"))).toHaveLength(2);
    await worker.stop();
  });
  it("treats a permanent refusal (5xx) as final: no retry, message failed, address suppressed", async () => {
    const c = clock();
    smtp = await startTestSmtp(0, [], { refuse: { "gone@example.org": 550 } });
    const mail = (to: string, subject: string) => ({ kind: "test", to, subject, text: "x", html: null });
    await enqueueMail(db.database.db, mail("Gone@Example.org", "First"), c.now());
    await enqueueMail(db.database.db, mail("gone@example.org", "Queued before the bounce"), c.now());
    await enqueueMail(db.database.db, mail("here@example.org", "Fine"), c.now());
    const worker = new OutboxWorker({ db: db.database.db, transport: smtpTransport(smtp.url), from: FROM, now: c.now });
    expect(await worker.runOnce()).toBe(1);
    expect(subjects(smtp.received)).toEqual(["Fine"]);
    const rows = await db.database.db.selectFrom("outbox").selectAll().orderBy("id").execute();
    // The first is refused at RCPT TO; the second is then not even tried: its address is suppressed.
    expect(rows.map((r) => [r.attempts, r.failed_at !== null, r.sent_at !== null])).toEqual([
      [1, true, false],
      [1, true, false],
      [1, false, true],
    ]);
    expect(rows[0]?.last_error).toMatch(/550/);
    expect(rows[0]?.last_error).not.toContain("gone@example.org");
    expect(await isSuppressed(db.database.db, "GONE@example.org")).toBe(true);
    const stored = await db.database.db.selectFrom("mail_suppressions").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain("gone@");

    // Nothing is retried later, and new mail to the address is not even queued.
    c.advance(48 * 3_600_000);
    expect(await worker.runOnce()).toBe(0);
    expect(await enqueueMail(db.database.db, mail("gone@example.org", "Later"), c.now())).toBeNull();
    expect(smtp.received).toHaveLength(1);
    await worker.stop();
  });

  it("fails a message refused for its content (5xx at DATA) without suppressing the address", async () => {
    const c = clock();
    smtp = await startTestSmtp(0, [], { refuseData: 554 });
    await enqueue(db, 1, c.now());
    const worker = new OutboxWorker({ db: db.database.db, transport: smtpTransport(smtp.url), from: FROM, now: c.now });
    expect(await worker.runOnce()).toBe(0);
    const row = await db.database.db.selectFrom("outbox").selectAll().executeTakeFirstOrThrow();
    expect(row.failed_at).not.toBeNull();
    expect(row.last_error).toMatch(/554/);
    expect(await isSuppressed(db.database.db, "person0@example.org")).toBe(false);
    c.advance(3_600_000);
    expect(await worker.runOnce()).toBe(0);
    expect((await db.database.db.selectFrom("outbox").select("attempts").executeTakeFirstOrThrow()).attempts).toBe(1);
    await worker.stop();
  });

  it("gives up after a capped number of attempts over about two days", async () => {
    const c = clock();
    const port = await freePort();
    await enqueue(db, 1, c.now());
    const worker = new OutboxWorker({
      db: db.database.db,
      transport: smtpTransport(`smtp://127.0.0.1:${port}`),
      from: FROM,
      now: c.now,
    });
    let rounds = 0;
    for (; rounds < 200; rounds++) {
      await worker.runOnce();
      const row = await db.database.db.selectFrom("outbox").selectAll().executeTakeFirstOrThrow();
      if (row.failed_at !== null) break;
      c.advance(3_600_000);
    }
    const row = await db.database.db.selectFrom("outbox").selectAll().executeTakeFirstOrThrow();
    expect(row.failed_at).not.toBeNull();
    expect(row.attempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
    const hours = (new Date(row.failed_at as string).getTime() - new Date(row.created_at).getTime()) / 3_600_000;
    expect(hours).toBeGreaterThanOrEqual(40);
    expect(hours).toBeLessThanOrEqual(60);
    // A failed message is not tried again, and a transient failure does not suppress the address.
    c.advance(3_600_000);
    await worker.runOnce();
    expect((await db.database.db.selectFrom("outbox").select("attempts").executeTakeFirstOrThrow()).attempts).toBe(
      row.attempts,
    );
    expect(await isSuppressed(db.database.db, "person0@example.org")).toBe(false);
    await worker.stop();
  });
});
