import { strFromU8, unzipSync } from "fflate";
import { afterEach, beforeEach, expect, it } from "vitest";
import { resolveSubject } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { makeReport, tokenIn, Visitor } from "../accounts/support.js";
import { linkIn, submitSlowly } from "../community/support.js";
import { describeEachDb } from "../helpers/app.js";
import { reportFormFields } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";
import { createApiKey } from "../../src/open311/keys.js";
import { trustHarness } from "./support.js";
import type { OutboxWorker } from "../../src/core/mail/worker.js";

/**
 * Issue 33, identity in one place: a person's data subject (the account and the addresses it covers, and so their
 * download, "My reports", erasure and strikes) grows only by that person's own proof, made for that account in a flow
 * that says so. Here another resident tries every form and link that takes an address, with the victim's address,
 * and the victim, trusting, presses every button in every mail they get, on their own device and on the other's.
 */
describeEachDb("whose address is whose", (dialect) => {
  let h: Awaited<ReturnType<typeof trustHarness>>;
  beforeEach(async () => {
    h = await trustHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  const victim = "vera.victim@example.org";
  const attacker = "mallory.taker@example.org";
  const db = () => h.app.civic.database.db;

  async function accountId(email: string) {
    return (await db().selectFrom("accounts").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
  }

  /** Sends everything in the outbox and waits until the SMTP server has it all. */
  async function deliverAll() {
    const worker = h.app.civic.workers.find((w) => w.name === "mail-outbox") as OutboxWorker;
    for (let i = 0; i < 500; i++) {
      await worker.runOnce();
      const sent = await db()
        .selectFrom("outbox")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("sent_at", "is not", null)
        .executeTakeFirstOrThrow();
      const queued = await db().selectFrom("outbox").select("id").where("sent_at", "is", null).execute();
      if (queued.length === 0 && h.smtp.received.length >= Number(sent.n)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("the outbox did not empty");
  }

  /** Every link to this platform in the mails `to` has received so far. */
  function linksTo(to: string): string[] {
    const base = h.app.civic.site.baseUrl;
    const paths = new Set<string>();
    for (const m of h.smtp.received.filter((r) => r.to.includes(to))) {
      for (const match of (m.parsed.text ?? "").matchAll(/https?:\/\/\S+/g)) {
        if (match[0].startsWith(base)) paths.add(match[0].slice(base.length));
      }
    }
    return [...paths];
  }

  /** Opens a link and presses the first button in the page's main part (what a trusting person does). */
  async function pressFirstButton(v: Visitor, path: string) {
    const page = await v.get(path);
    const main = page.body.slice(page.body.indexOf("<main"));
    const form = /<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(main);
    if (!form) return;
    const fields: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
      fields[input[1]!] = input[2]!.replace(/&amp;/g, "&");
    }
    await v.post(form[1]!.replace(/&amp;/g, "&"), { _csrf: tokenIn(page.body), ...fields });
  }

  it("nothing another account does with my address makes my data theirs", async () => {
    // The victim has no account: what they hold is under their address (a report with their name and phone).
    const mine = await makeReport(h.app, { email: victim, name: "Vera Victim", phone: "07700 900111" });

    const m = new Visitor(h.app);
    await m.signIn(h, attacker);
    const attackerId = await accountId(attacker);

    // Every form that takes an address, signed in as the attacker, with the victim's address.
    await submitSlowly(h, m, "/volunteer", "/volunteer", {
      name: "Mallory",
      email: victim,
      interests: "Anything",
      availability: "Any time",
      website: "",
    });
    await submitSlowly(h, m, "/newsletter", "/newsletter", { email: victim, website: "" });
    await submitSlowly(h, m, `/reports/${mine.reference}/follow`, `/reports/${mine.reference}/follow`, {
      email: victim,
      website: "",
    });
    await submitSlowly(h, m, "/report?category=pothole", "/report", reportFormFields({ email: victim }));
    await submitSlowly(h, m, "/my-data", "/my-data", { email: victim });
    await deliverAll();

    // The victim presses every button in every mail, on their own device and on the attacker's.
    const v = new Visitor(h.app);
    for (const path of linksTo(victim)) {
      if (/unsubscribe|withdraw|undo/.test(path)) continue;
      await pressFirstButton(m, path);
      await pressFirstButton(v, path);
    }

    // The attacker's subject is their own account and address, nothing more.
    const subject = await resolveSubject(sourceContext(h.app.civic), { accountId: attackerId, email: attacker });
    expect(subject.emails).toEqual([attacker]);
    const zip = await m.submit("/account/data", "/account/data/download", {});
    expect(zip.statusCode).toBe(200);
    const text = strFromU8(unzipSync(new Uint8Array(zip.rawPayload))["data.json"]!);
    expect(text).not.toContain(victim);
    expect(text).not.toContain("Vera Victim");
    expect(text).not.toContain("07700 900111");
    expect(text).not.toContain(mine.reference);
    expect((await m.get("/account/reports")).body).not.toContain(mine.reference);

    // The victim's own data did not grow either: by their my-data link, their one report and nothing of the other's.
    await submitSlowly(h, v, "/my-data", "/my-data", { email: victim });
    const link = linkIn((await h.mailTo(victim)).parsed.text ?? "", "/my-data/open/");
    const page = await v.get(link);
    const theirs = await v.post("/my-data/download", { _csrf: tokenIn(page.body), token: link.split("/").pop()! });
    const theirText = strFromU8(unzipSync(new Uint8Array(theirs.rawPayload))["data.json"]!);
    const references = JSON.parse(theirText).reports.map((r: { reference: string }) => r.reference);
    expect(references).toEqual([mine.reference]);
    expect(theirText).not.toContain("Mallory");

    // Erasing the attacker's account erases nothing of the victim's.
    expect((await m.submit("/account/delete", "/account/delete", { confirm: "yes" })).statusCode).toBe(200);
    const row = await db()
      .selectFrom("reports")
      .select(["reporter_email", "reporter_name", "reporter_phone"])
      .where("reference", "=", mine.reference)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ reporter_email: victim, reporter_name: "Vera Victim", reporter_phone: "07700 900111" });
    const left = await db().selectFrom("newsletter_subscribers").select("email").execute();
    expect(left.map((r) => r.email)).toEqual([victim]);
  }, 180_000);

  it("a form used while signed in files under the account's own address, whatever address is typed", async () => {
    const m = new Visitor(h.app);
    await m.signIn(h, attacker);
    const attackerId = await accountId(attacker);
    const form = await m.get("/volunteer");
    // Signed in, the form asks for no address: it says which one it uses, without showing it.
    expect(form.body).not.toContain('name="email"');
    await submitSlowly(h, m, "/volunteer", "/volunteer", {
      name: "Mallory",
      email: victim,
      interests: "Anything",
      availability: "Any time",
      website: "",
    });
    const report = await m.get("/report?category=pothole");
    expect(report.body).not.toContain('name="email"');
    const sent = await submitSlowly(h, m, "/report?category=pothole", "/report", reportFormFields({ email: victim }));
    expect(sent.statusCode).toBeLessThan(400);
    const signUps = await db().selectFrom("volunteers").select(["email", "account_id"]).execute();
    expect(signUps).toEqual([{ email: attacker, account_id: attackerId }]);
    const reports = await db()
      .selectFrom("reports")
      .select(["reporter_email"])
      .where("account_id", "=", attackerId)
      .execute();
    expect(reports).toEqual([{ reporter_email: attacker }]);
    // Nothing was mailed to the typed address.
    expect(h.smtp.received.filter((r) => r.to.includes(victim))).toEqual([]);
  }, 120_000);

  it("an Open311 client's account_id is never one of our accounts: no reports, strikes or mail for a resident", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, victim);
    const victimId = await accountId(victim);
    const { key } = await createApiKey(db(), "Some council app", new Date());
    const references: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.app.inject({
        method: "POST",
        url: "/api/v2/requests.json",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({
          api_key: key,
          service_code: "pothole",
          lat: "50.9865",
          long: "-2.044",
          description: `Abusive text number ${i}`,
          account_id: victimId,
          "attribute[road_or_pavement]": "road",
        }).toString(),
      });
      expect(res.statusCode, res.body).toBe(200);
      references.push((JSON.parse(res.body) as { service_request_id: string }[])[0]!.service_request_id);
    }
    const moderator = await signInAs(h.app, "moderator@example.org", "moderator");
    for (const reference of references) {
      const res = await moderator.post("/admin/moderation/decide", {
        kind: "report",
        id: reference,
        action: "hide",
        reason: "Abusive",
      });
      expect(res.statusCode, res.body).toBe(303);
    }
    const strikes = await db()
      .selectFrom("moderation_strikes")
      .select("id")
      .where("account_id", "=", victimId)
      .execute();
    expect(strikes).toEqual([]);
    const account = await db()
      .selectFrom("accounts")
      .select("suspended_at")
      .where("id", "=", victimId)
      .executeTakeFirstOrThrow();
    expect(account.suspended_at).toBeNull();
    const mine = (await v.get("/account/reports")).body;
    for (const reference of references) expect(mine).not.toContain(reference);
    await deliverAll();
    expect(h.smtp.received.filter((r) => r.to.includes(victim) && !/sign-in/i.test(r.parsed.subject ?? ""))).toEqual(
      [],
    );
  }, 120_000);
});
