import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { startTestSmtp } from "../helpers/smtp.js";
import { buildApp } from "../../src/app.js";
import type { DB } from "../../src/core/db/schema.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";
import { queueNextBatch, sendPendingIssues } from "../../src/newsletter/service.js";
import { linkIn, signedIn, submitSlowly } from "./support.js";

async function subscribeAndConfirm(h: AccountsHarness, email: string) {
  const v = new Visitor(h.app);
  const res = await submitSlowly(h, v, "/newsletter", "/newsletter", { email, website: "" });
  expect(res.statusCode).toBe(200);
  const mail = await h.mailTo(email);
  const path = linkIn(mail.parsed.text ?? "", "/newsletter/confirm/");
  const page = await v.get(path);
  expect(page.body).toContain("Confirm");
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const done = await v.post(path, { _csrf: token });
  expect(done.statusCode).toBe(200);
}

describeEachDb("newsletter", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("double opt-in: nothing is subscribed until the confirmation page's button is pressed", async () => {
    const v = new Visitor(h.app);
    const bad = await submitSlowly(h, v, "/newsletter", "/newsletter", { email: "not an address", website: "" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="not an address"');
    expect(bad.body).toContain("Enter an email address");

    await submitSlowly(h, v, "/newsletter", "/newsletter", { email: "Ann@Example.org", website: "" });
    const mail = await h.mailTo("ann@example.org");
    const path = linkIn(mail.parsed.text ?? "", "/newsletter/confirm/");
    const db = h.app.civic.database.db;
    const status = async () =>
      (
        await db
          .selectFrom("newsletter_subscribers")
          .select("status")
          .where("email", "=", "ann@example.org")
          .executeTakeFirst()
      )?.status;
    expect(await status()).toBe("unconfirmed");
    // Opening the link (a mail scanner, a prefetch) does not confirm.
    expect((await v.get(path)).statusCode).toBe(200);
    expect(await status()).toBe("unconfirmed");
    const token = /name="_csrf" value="([^"]+)"/.exec((await v.get(path)).body)![1]!;
    expect((await v.post(path, { _csrf: token })).statusCode).toBe(200);
    expect(await status()).toBe("confirmed");
    const row = await db.selectFrom("newsletter_subscribers").selectAll().executeTakeFirstOrThrow();
    expect(row.consent_text).toContain("I can stop it at any time");
    expect(row.confirmed_at).toBeTruthy();
    // The honeypot refuses.
    const bot = await submitSlowly(h, v, "/newsletter", "/newsletter", { email: "bot@example.org", website: "x" });
    expect(bot.statusCode).toBe(400);
  });

  it("sends an issue once per confirmed subscriber with RFC 8058 headers; one-click POST without cookies unsubscribes, GET does not", async () => {
    await subscribeAndConfirm(h, "ann@example.org");
    await subscribeAndConfirm(h, "bob@example.org");
    const v = new Visitor(h.app);
    await submitSlowly(h, v, "/newsletter", "/newsletter", { email: "carl@example.org", website: "" }); // never confirmed
    await h.mailTo("carl@example.org");

    const staff = await signedIn(h, "editor@example.org", "admin");
    const created = await submitSlowly(h, staff, "/admin/newsletter/new", "/admin/newsletter", {
      title: "Autumn news",
      body: "The bench is fixed.\n\nSee you at the fair.",
      action: "save",
    });
    expect(created.statusCode).toBe(303);
    const issuePath = created.headers.location as string;
    const preview = await submitSlowly(h, staff, issuePath, issuePath, {
      title: "Autumn news",
      body: "The bench is **fixed** <script>x</script>",
      action: "preview",
    });
    expect(preview.body).toContain("&lt;script&gt;");
    expect(preview.body).not.toContain("<script>x");
    expect(preview.body).toContain("<h3>Autumn news</h3>");
    expect(preview.body).toContain("The bench is <strong>fixed</strong>");
    await submitSlowly(h, staff, issuePath, issuePath, {
      title: "Autumn news",
      body: "The bench is fixed.",
      action: "test",
    });
    const test = await h.mailTo("editor@example.org");
    expect(test.parsed.subject).toContain("[Test]");

    // "Send" pressed twice (the same page's form posted again).
    h.advance(5_000);
    const sendToken = /name="_csrf" value="([^"]+)"/.exec((await staff.get(issuePath)).body)![1]!;
    const send = { _csrf: sendToken, title: "Autumn news", body: "The bench is fixed.", action: "send" };
    expect((await staff.post(issuePath, send)).statusCode).toBe(303);
    expect((await staff.post(issuePath, send)).body).toContain("already being sent");
    await sendPendingIssues(h.app.civic);
    await sendPendingIssues(h.app.civic);
    const ann = await h.mailTo("ann@example.org");
    await h.smtp.waitFor(h.smtp.received.length);
    const news = h.smtp.received.filter(
      (m) => m.parsed.subject?.includes("newsletter: Autumn news") && !m.parsed.subject.includes("[Test]"),
    );
    expect(news.map((m) => m.to[0]).sort()).toEqual(["ann@example.org", "bob@example.org"]);
    const progress = await staff.get(issuePath);
    expect(progress.body).toContain("Queued for 2 of 2");
    expect(progress.body).toContain('class="staff-nav"');
    const actions = await h.app.civic.database.db
      .selectFrom("audit_log")
      .select("action")
      .where("item_type", "=", "newsletter_issue")
      .orderBy("id")
      .execute();
    // Created, edited (by the preview's save), tested, sent once (the second press changed nothing).
    expect(actions.map((a) => a.action)).toEqual([
      "newsletter.create",
      "newsletter.edit",
      "newsletter.edit",
      "newsletter.test",
      "newsletter.send",
    ]);

    expect(ann.parsed.subject).toContain("Autumn news");
    expect(ann.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const unfolded = ann.raw.replace(/\r?\n[ \t]+/g, " ");
    const listUnsubscribe = /^List-Unsubscribe: (.+?)\r?$/m.exec(unfolded)![1]!;
    const url = /<(https?:\/\/[^>]+)>/.exec(listUnsubscribe)![1]!;
    const path = new URL(url).pathname;
    expect(path).toMatch(/^\/newsletter\/unsubscribe\//);
    const db = h.app.civic.database.db;
    const annStatus = async () =>
      (
        await db
          .selectFrom("newsletter_subscribers")
          .select("status")
          .where("email", "=", "ann@example.org")
          .executeTakeFirst()
      )?.status;

    const get = await h.app.inject({ method: "GET", url: path });
    expect(get.statusCode).toBe(200);
    expect(get.body).toContain("Unsubscribe");
    expect(await annStatus()).toBe("confirmed");

    const forged = await h.app.inject({
      method: "POST",
      url: path.slice(0, -3) + "AAA",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(forged.statusCode).toBe(404);
    // As a mail client does it: no cookie, no form token, possibly from another origin.
    const post = await h.app.inject({
      method: "POST",
      url: path,
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(post.statusCode).toBe(200);
    expect(post.headers["set-cookie"]).toBeUndefined();
    expect(await annStatus()).toBe("unsubscribed");

    // The archive and its feed show the issue, never a subscriber.
    const archive = await h.app.inject({ method: "GET", url: "/newsletter/archive" });
    expect(archive.body).toContain("Autumn news");
    const feed = await h.app.inject({ method: "GET", url: "/newsletter/archive.atom" });
    expect(feed.headers["content-type"]).toContain("application/atom+xml");
    expect(feed.body).toContain("Autumn news");
    expect(feed.body).not.toContain("example.org");
  });
});

async function addSubscribers(db: Kysely<DB>, emails: string[]) {
  const at = new Date().toISOString();
  for (const [i, email] of emails.entries()) {
    await db
      .insertInto("newsletter_subscribers")
      .values({
        email,
        status: "confirmed",
        unsubscribe_salt: `salt${i}`,
        consent_text: "yes",
        created_at: at,
        confirmed_at: at,
        unsubscribed_at: null,
      })
      .execute();
  }
  const issue = await db
    .insertInto("newsletter_issues")
    .values({
      title: "News",
      body: "Hello",
      status: "sending",
      created_at: at,
      updated_at: at,
      send_started_at: at,
      sent_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return issue.id;
}

const outboxWorker = (app: FastifyInstance) => app.civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;

describeEachDb("newsletter and SMTP refusals", (dialect) => {
  it("a recipient's permanent SMTP refusal (5xx) suppresses the address; the others still get the issue", async () => {
    const smtp = await startTestSmtp(0, [], { refuse: { "gone@example.org": 550 } });
    const t = await createTestApp(dialect, { env: { SMTP_URL: smtp.url } });
    const db = t.app.civic.database.db;
    const issueId = await addSubscribers(db, ["ann@example.org", "gone@example.org"]);
    await sendPendingIssues(t.app.civic);
    await outboxWorker(t.app).runOnce();
    expect(smtp.received.map((m) => m.to[0])).toEqual(["ann@example.org"]);
    const suppressed = await db.selectFrom("mail_suppressions").selectAll().execute();
    expect(suppressed).toHaveLength(1);
    expect(suppressed[0]!.reason).toContain("550");
    // The next issue queues nothing for the suppressed address.
    const at = new Date().toISOString();
    const next = await db
      .insertInto("newsletter_issues")
      .values({
        title: "More",
        body: "Hi",
        status: "sending",
        created_at: at,
        updated_at: at,
        send_started_at: at,
        sent_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await sendPendingIssues(t.app.civic);
    const sends = await db.selectFrom("newsletter_sends").selectAll().where("issue_id", "=", next.id).execute();
    expect(sends.filter((s) => s.outbox_id === null)).toHaveLength(1);
    expect(issueId).toBeLessThan(next.id);
    await t.close();
    await smtp.close();
  });
});

describeEachDb("newsletter sending across a restart", (dialect) => {
  it("two app instances on one database, the first stopped half-way: every subscriber gets exactly one mail", async () => {
    const smtp = await startTestSmtp();
    const first = await createTestApp(dialect, { env: { SMTP_URL: smtp.url } });
    const db = first.app.civic.database.db;
    const issueId = await addSubscribers(
      db,
      [0, 1, 2, 3, 4, 5, 6].map((i) => `r${i}@example.org`),
    );
    // The first process queues a batch of 3, its worker sends them, and it stops (killed between batches).
    await queueNextBatch(first.app.civic, issueId, 3);
    await outboxWorker(first.app).runOnce();
    await first.app.close();

    // A second process on the same database, and a third running the job at the same time.
    const second = await buildApp(first.config, { logger: false, database: first.db.reopen() });
    const third = await buildApp(first.config, { logger: false, database: first.db.reopen() });
    await Promise.all([second.ready(), third.ready()]);
    if (dialect === "postgres") {
      await Promise.all([sendPendingIssues(second.civic), sendPendingIssues(third.civic)]);
      await Promise.all([outboxWorker(second).runOnce(), outboxWorker(third).runOnce()]);
    } else {
      // One process holds SQLite's write lock across awaits; two instances in one process take turns.
      await sendPendingIssues(second.civic);
      await sendPendingIssues(third.civic);
      await outboxWorker(second).runOnce();
      await outboxWorker(third).runOnce();
    }
    await smtp.waitFor(7);
    // Every round above was awaited, and a round returns only once the SMTP server has taken its messages: with no
    // message left unsent in the outbox, no further (repeated) mail can still be on its way.
    const unsent = await second.civic.database.db
      .selectFrom("outbox")
      .select("id")
      .where("sent_at", "is", null)
      .execute();
    expect(unsent).toEqual([]);
    const to = smtp.received.map((m) => m.to[0]).sort();
    expect(to).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `r${i}@example.org`));
    const state = await second.civic.database.db
      .selectFrom("newsletter_issues")
      .select("status")
      .executeTakeFirstOrThrow();
    expect(state.status).toBe("sent");
    await third.close();
    await second.close();
    await first.db.cleanup();
    await smtp.close();
  });
});
