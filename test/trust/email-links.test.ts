import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prolongNewest } from "../../src/accounts/challenges.js";
import { unsubscribeUrl } from "../../src/newsletter/service.js";
import { updateRecipients } from "../../src/reports/followers.js";
import { alertUnsubscribeUrl } from "../../src/reports/alerts.js";
import { sendQuestionnaires } from "../../src/reports/questionnaire.js";
import { makeReport, signInMailParts, tokenIn, Visitor } from "../accounts/support.js";
import { linkIn, submitSlowly } from "../community/support.js";
import { describeEachDb } from "../helpers/app.js";
import { dumpEveryTable, trustHarness } from "./support.js";

/**
 * Issue 33, "one emailed-link mechanism": system-wide over the app's own route list.
 * (a) Every page a link in a mail opens (every GET route with a `:token` parameter) changes nothing in any table,
 *     for a stranger and for a signed-in person: only its button acts.
 * (b) Every single-use link, once used, does nothing the second time, also after the mailbox-cap relief ran.
 * (c) Presses of a single-use link that arrive together: one works.
 */
describeEachDb("emailed links", (dialect) => {
  let h: Awaited<ReturnType<typeof trustHarness>>;
  beforeAll(async () => {
    h = await trustHarness(dialect);
  });
  afterAll(async () => h?.close());

  /** The "Is it fixed?" mail of a report whose making is backdated past QUESTIONNAIRE_AFTER_DAYS (due now). */
  async function questionnaireText(reportId: number, to: string): Promise<string> {
    const db = h.app.civic.database.db;
    const long = new Date(h.app.civic.now().getTime() - 30 * 24 * 60 * 60_000).toISOString();
    await db.updateTable("report_updates").set({ created_at: long }).where("report_id", "=", reportId).execute();
    await sendQuestionnaires(h.app.civic);
    const mail = await db
      .selectFrom("outbox")
      .select("text_body")
      .where("kind", "=", "report-questionnaire")
      .where("to_address", "=", to)
      .executeTakeFirstOrThrow();
    return mail.text_body;
  }

  /**
   * Tables that any request may touch whatever its page: visit statistics, rate-limit counters and the session's
   * last-seen time. Everything else must be byte for byte the same after a link's page is opened.
   */
  const BOOKKEEPING = new Set(["analytics_counts", "analytics_visitors", "analytics_salts", "rate_limit_counters"]);
  const withoutSessionTimes = (table: string, json: string) =>
    table === "sessions" ? json.replace(/"last_seen_at":"[^"]*"/g, "") : json;

  async function snapshot(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [table, json] of await dumpEveryTable(h)) {
      if (!BOOKKEEPING.has(table)) out.set(table, withoutSessionTimes(table, json));
    }
    return out;
  }

  /** A real link of each kind, from a real mail (or, for unsubscribe links, the function that writes them). */
  async function linksOfEveryKind(): Promise<Map<string, string>> {
    const links = new Map<string, string>();
    const site = h.app.civic.site.baseUrl;
    const pathOf = (url: string) => url.slice(site.length);

    const stranger = new Visitor(h.app);
    await stranger.submit("/sign-in", "/sign-in/email", { email: "linnet@example.org" });
    links.set("/sign-in/link/:token", signInMailParts(await h.mailTo("linnet@example.org")).path);
    await stranger.submit("/my-data", "/my-data", { email: "linnet.data@example.org" });
    links.set("/my-data/open/:token", signInMailParts(await h.mailTo("linnet.data@example.org")).path);

    const owner = new Visitor(h.app);
    await owner.signIn(h, "plover@example.org");
    await owner.submit("/account", "/account/addresses", { email: "plover.other@example.org" });
    links.set(
      "/account/addresses/confirm/:token",
      linkIn((await h.mailTo("plover.other@example.org")).parsed.text ?? "", "/account/addresses/confirm/"),
    );
    await owner.submit("/account", "/account/email", { email: "plover.new@example.org" });
    const change = signInMailParts(await h.mailTo("plover.new@example.org"));
    links.set("/account/email/confirm/:token", change.path);
    // A second change, confirmed, for the undo link sent to the address before it.
    const mover = new Visitor(h.app);
    await mover.signIn(h, "curlew@example.org");
    await mover.submit("/account", "/account/email", { email: "curlew.new@example.org" });
    const moved = signInMailParts(await h.mailTo("curlew.new@example.org"));
    const confirmPage = await mover.get(moved.path);
    await mover.post("/account/email/confirm", { _csrf: tokenIn(confirmPage.body), token: moved.token });
    links.set(
      "/account/email/undo/:token",
      linkIn((await h.mailTo("curlew@example.org")).parsed.text ?? "", "/account/email/undo/"),
    );

    const visitor = new Visitor(h.app);
    await submitSlowly(h, visitor, "/newsletter", "/newsletter", { email: "pipit@example.org", website: "" });
    links.set(
      "/newsletter/confirm/:token",
      linkIn((await h.mailTo("pipit@example.org")).parsed.text ?? "", "/newsletter/confirm/"),
    );
    const subscriber = await h.app.civic.database.db
      .selectFrom("newsletter_subscribers")
      .select(["id", "unsubscribe_salt"])
      .where("email", "=", "pipit@example.org")
      .executeTakeFirstOrThrow();
    links.set(
      "/newsletter/unsubscribe/:token",
      pathOf(unsubscribeUrl(h.app.civic, subscriber.id, subscriber.unsubscribe_salt)),
    );

    const report = await makeReport(h.app, { email: "dunlin@example.org" });
    await submitSlowly(h, visitor, `/reports/${report.reference}`, `/reports/${report.reference}/follow`, {
      email: "knot@example.org",
      website: "",
    });
    links.set(
      "/reports/updates/confirm/:token",
      linkIn((await h.mailTo("knot@example.org")).parsed.text ?? "", "/reports/updates/confirm/"),
    );
    const reportId = (
      await h.app.civic.database.db
        .selectFrom("reports")
        .select("id")
        .where("reference", "=", report.reference)
        .executeTakeFirstOrThrow()
    ).id;
    const [recipient] = await updateRecipients(h.app.civic, h.app.civic.database.db, reportId);
    links.set("/reports/updates/unsubscribe/:token", pathOf(recipient!.unsubscribeUrl));
    await submitSlowly(h, visitor, `/reports/${report.reference}`, `/reports/${report.reference}/seen`, {
      email: "sandpiper@example.org",
      website: "",
    });
    links.set(
      "/reports/seen/confirm/:token",
      linkIn((await h.mailTo("sandpiper@example.org")).parsed.text ?? "", "/reports/seen/confirm/"),
    );
    await submitSlowly(h, visitor, `/reports/${report.reference}`, `/reports/${report.reference}/update`, {
      "update-note": "The hole is bigger today.",
      email: "whimbrel@example.org",
      website: "",
    });
    links.set(
      "/reports/updates/publish/:token",
      linkIn((await h.mailTo("whimbrel@example.org")).parsed.text ?? "", "/reports/updates/publish/"),
    );
    const asked = await questionnaireText(reportId, "dunlin@example.org");
    links.set("/reports/fixed/yes/:token", linkIn(asked, "/reports/fixed/yes/"));
    links.set("/reports/fixed/no/:token", linkIn(asked, "/reports/fixed/no/"));

    await submitSlowly(h, visitor, "/alerts", "/alerts", {
      scope: "village",
      frequency: "immediate",
      email: "turnstone@example.org",
      website: "",
    });
    links.set(
      "/alerts/confirm/:token",
      linkIn((await h.mailTo("turnstone@example.org")).parsed.text ?? "", "/alerts/confirm/"),
    );
    const alert = await h.app.civic.database.db
      .selectFrom("report_alerts")
      .select(["id", "token_hash"])
      .where("email", "=", "turnstone@example.org")
      .executeTakeFirstOrThrow();
    links.set("/alerts/unsubscribe/:token", pathOf(alertUnsubscribeUrl(h.app.civic, alert)));

    await submitSlowly(h, visitor, "/ideas/new", "/ideas", {
      title: "A bench by the pond",
      description: "Somewhere to sit and watch the ducks.",
      email: "godwit@example.org",
      website: "",
    });
    links.set(
      "/ideas/confirm/:token",
      linkIn((await h.mailTo("godwit@example.org")).parsed.text ?? "", "/ideas/confirm/"),
    );

    await submitSlowly(h, visitor, "/volunteer", "/volunteer", {
      name: "Sandy Ling",
      email: "sanderling@example.org",
      interests: "Litter picks",
      availability: "Saturdays",
      website: "",
    });
    links.set(
      "/volunteer/confirm/:token",
      linkIn((await h.mailTo("sanderling@example.org")).parsed.text ?? "", "/volunteer/confirm/"),
    );
    return links;
  }

  it("(a) the page every link opens changes nothing in any table, for a stranger and for a signed-in person", async () => {
    // Open311's GET /tokens/{token} (an API client's request token) is not a link in a mail.
    const tokenPages = [
      ...new Set(
        h.app.civic.routes
          .filter((r) => r.method === "GET" && r.url.includes(":token") && !r.url.startsWith("/api/"))
          .map((r) => r.url),
      ),
    ].sort();
    const links = await linksOfEveryKind();
    // Every GET route with a token has a real link here; a new one fails until it is added above.
    expect(tokenPages, JSON.stringify(tokenPages)).toEqual([...links.keys()].sort());

    const someoneElse = new Visitor(h.app);
    await someoneElse.signIn(h, "shrike@example.org");
    for (const [route, path] of links) {
      for (const who of [new Visitor(h.app), someoneElse]) {
        const before = await snapshot();
        const page = await who.get(path);
        expect(page.statusCode, `${route}: ${page.body.slice(0, 200)}`).toBe(200);
        const after = await snapshot();
        const changed = [...after].filter(([table, rows]) => before.get(table) !== rows).map(([table]) => table);
        expect(changed, `GET ${route} changed these tables`).toEqual([]);
      }
    }
  }, 180_000);

  it("(b) a single-use link does nothing the second time, also after the mailbox-cap relief ran", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "redshank@example.org");
    const twice = async (page: string, action: string, fields: Record<string, string>) => {
      const opened = await v.get(page);
      const csrf = tokenIn(opened.body);
      const first = await v.post(action, { _csrf: csrf, ...fields });
      // The relief of every challenge kind, for every address involved (it must not revive used links).
      for (const purpose of ["sign-in", "email-change", "my-data", "add-address"] as const) {
        for (const email of ["redshank@example.org", "redshank.new@example.org", "redshank.two@example.org"]) {
          await prolongNewest(h.app.civic.database.db, { purpose, email, accountId: null }, h.app.civic.now());
        }
      }
      const again = await new Visitor(h.app).get(page);
      // A fresh form token: the first press may have started a new session (sign-in).
      const second = await v.post(action, { _csrf: tokenIn((await v.get("/my-data")).body), ...fields });
      return { first: first.statusCode, page: again.statusCode, second: second.statusCode };
    };

    // Sign-in: a second press signs nobody in.
    const other = new Visitor(h.app);
    await other.submit("/sign-in", "/sign-in/email", { email: "redshank@example.org" });
    const signIn = signInMailParts(await h.mailTo("redshank@example.org"));
    expect(await twice(signIn.path, "/sign-in/link", { token: signIn.token })).toEqual({
      first: 303,
      page: 410,
      second: 410,
    });

    // Adding an address.
    await v.submit("/account", "/account/addresses", { email: "redshank.two@example.org" });
    const add = linkIn((await h.mailTo("redshank.two@example.org")).parsed.text ?? "", "/account/addresses/confirm/");
    const addToken = add.split("/").pop()!;
    expect(await twice(add, "/account/addresses/confirm", { token: addToken })).toEqual({
      first: 200,
      page: 410,
      second: 410,
    });

    // Changing the address, then undoing it.
    await v.submit("/account", "/account/email", { email: "redshank.new@example.org" });
    const change = signInMailParts(await h.mailTo("redshank.new@example.org"));
    expect(await twice(change.path, "/account/email/confirm", { token: change.token })).toEqual({
      first: 303,
      page: 410,
      second: 410,
    });
    const undo = linkIn((await h.mailTo("redshank@example.org")).parsed.text ?? "", "/account/email/undo/");
    const undone = await twice(undo, "/account/email/undo", { token: undo.split("/").pop()! });
    expect(undone).toEqual({ first: 200, page: 410, second: 410 });

    // The features' confirmations: the page is gone once used, and a second press does nothing.
    const visitor = new Visitor(h.app);
    await submitSlowly(h, visitor, "/newsletter", "/newsletter", { email: "stint@example.org", website: "" });
    await submitSlowly(h, visitor, "/ideas/new", "/ideas", {
      title: "Swift boxes on the church",
      description: "Nest boxes under the eaves.",
      email: "stint@example.org",
      website: "",
    });
    const report = await makeReport(h.app, { email: "ruff@example.org" });
    const asked = await questionnaireText(report.id, "ruff@example.org");
    await submitSlowly(h, visitor, `/reports/${report.reference}`, `/reports/${report.reference}/follow`, {
      email: "stint@example.org",
      website: "",
    });
    await submitSlowly(h, visitor, "/alerts", "/alerts", {
      scope: "village",
      frequency: "daily",
      email: "sandpiper@example.org", // the mail policy sends one address at most 3 confirmations an hour
      website: "",
    });
    await h.mailTo("stint@example.org");
    const texts = (
      await h.app.civic.database.db
        .selectFrom("outbox")
        .select("text_body")
        .where("to_address", "in", ["stint@example.org", "sandpiper@example.org"])
        .execute()
    )
      .map((m) => m.text_body)
      .concat(asked)
      .join("\n");
    for (const path of [
      "/newsletter/confirm/",
      "/ideas/confirm/",
      "/reports/updates/confirm/",
      "/alerts/confirm/",
      "/reports/fixed/no/",
    ]) {
      const link = linkIn(texts, path);
      const csrf = tokenIn((await visitor.get(link)).body);
      const first = await visitor.post(link, { _csrf: csrf });
      expect([200, 303], `${path} first press`).toContain(first.statusCode);
      expect((await visitor.get(link)).statusCode, `${path} page once used`).toBe(410);
      const second = await visitor.post(link, { _csrf: tokenIn((await visitor.get("/my-data")).body) });
      expect(second.statusCode, `${path} second press`).toBe(410);
    }
  }, 180_000);

  it("(c) a single-use link pressed many times at once works once", async () => {
    const asker = new Visitor(h.app);
    await asker.submit("/sign-in", "/sign-in/email", { email: "turnstone@example.org" });
    const { path, token } = signInMailParts(await h.mailTo("turnstone@example.org"));
    const browsers = Array.from({ length: 10 }, () => new Visitor(h.app));
    const forms = await Promise.all(browsers.map(async (b) => tokenIn((await b.get(path)).body)));
    const answers = await Promise.all(browsers.map((b, i) => b.post("/sign-in/link", { _csrf: forms[i]!, token })));
    expect(answers.filter((a) => a.statusCode === 303).length).toBe(1);
    expect(answers.filter((a) => a.statusCode === 410).length).toBe(9);
  });
});

/** The floor's table of links is written only through its API (src/core/links.ts): no other file names it. */
describe("emailed links have one home", () => {
  const ROOT = join(import.meta.dirname, "../..");
  const ALLOWED: Record<string, string> = {
    "src/core/links.ts": "the mechanism itself",
    "src/core/db/schema.ts": "the table's type",
    "src/core/db/migrations/0026_email_links.ts": "the table's migration",
    "src/core/db/migrations/index.ts": "the list of migrations",
    "src/accounts/data-sources.ts": "the tables an erasure vacuums (it erases links through eraseLinks)",
  };
  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sources(path);
      return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
    });
  }

  it("no file outside core/links.ts reads or writes email_links", () => {
    const offending = sources(join(ROOT, "src"))
      .map((path) => relative(ROOT, path).replaceAll("\\", "/"))
      .filter((file) => !(file in ALLOWED) && readFileSync(join(ROOT, file), "utf8").includes("email_links"));
    expect(offending).toEqual([]);
  });
});
