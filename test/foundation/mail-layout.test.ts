import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moderate, suspendAccount, unsuspendAccount } from "../../src/moderation/decisions.js";
import { queueNextBatch } from "../../src/newsletter/service.js";
import { sendQuestionnaires } from "../../src/reports/questionnaire.js";
import { recordReportEvent } from "../../src/reports/events.js";
import { sendAlertDigests, sendNewReportAlerts } from "../../src/reports/alerts.js";
import {
  accountsHarness,
  type AccountsHarness,
  makeReport,
  signInMailParts,
  tokenIn,
  Visitor,
} from "../accounts/support.js";
import { signedIn, submitSlowly } from "../community/support.js";
import { jpegWithGps } from "../helpers/images.js";
import { describeEachDb } from "../helpers/app.js";
import { hasJava, nuErrors, warnNoJava } from "../helpers/nu.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 34, "one mail layout": the app sends every kind of mail it can send, through the real flows, and each has a
 * text part and an HTML part made by the one layout (src/core/mail/layout.ts): the HTML part is valid by the Nu HTML
 * Checker, fetches nothing (no images, stylesheets or other remote resources), its every link is written out in
 * the text part, and both parts have the heading and the footer. The kinds covered must be every kind the code
 * can send: a new kind of mail fails this test until it is driven here.
 */
warnNoJava("mail-layout.test.ts");

/** `kind: "…"` literals in the mail files that are kinds of something else (moderation items, link outcomes). */
// Other things' kinds in files that queue mail (moderated items, report events: src/reports/events.ts).
const NOT_MAIL_KINDS = new Set([
  "report",
  "strike",
  "account",
  "follower",
  "reporter",
  "undone",
  "expired",
  "taken",
  "status",
  "update",
  "seen",
  "questionnaire",
  "moderation",
  // The answers of a resident's update (reports/resident-updates.ts), not mails.
  "published",
  "not-public",
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every mail kind written in the code: the `kind: "…"` literals of the files that build or queue mail. */
function kindsInCode(): string[] {
  const kinds = new Set<string>();
  for (const file of sources(join(import.meta.dirname, "../../src"))) {
    const text = readFileSync(file, "utf8");
    if (!/enqueueMail\(|sendUnconfirmedMail\(|OutgoingMail\b|renderMail\(/.test(text)) continue;
    for (const m of text.matchAll(/\bkind: "([a-z][a-z0-9-]*)",/g)) {
      if (!NOT_MAIL_KINDS.has(m[1]!)) kinds.add(m[1]!);
    }
  }
  return [...kinds].sort();
}

function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

describeEachDb("every mail in the one layout", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    if (hasJava) h = await accountsHarness(dialect, { RATE_LIMIT_WRITE_MAX: "100000" });
  });
  afterAll(async () => h?.close());

  it.skipIf(!hasJava)(
    "sends every kind with a valid, self-contained HTML part whose links are all in the text part",
    async () => {
      const app = h.app;
      const civic = app.civic;
      const db = civic.database.db;

      // Mail to addresses nobody has confirmed, asked for by a visitor.
      const v = new Visitor(app);
      const fresh = async (page: string) => {
        const token = tokenIn((await v.get(page)).body);
        h.advance(6_000);
        return token;
      };
      await v.submit("/sign-in", "/sign-in/email", { email: "signin@example.org" });
      await v.submit("/my-data", "/my-data", { email: "mydata@example.org" });
      await v.post("/ideas", {
        _csrf: await fresh("/ideas/new"),
        website: "",
        title: "A bench by the pond",
        description: "Somewhere to sit & watch the ducks <3",
        email: "idea@example.org",
      });
      await v.post("/volunteer", {
        _csrf: await fresh("/volunteer"),
        website: "",
        name: "Val Volunteer",
        email: "volunteer@example.org",
        interests: "Litter picks",
        availability: "Weekends",
      });
      await v.post("/newsletter", { _csrf: await fresh("/newsletter"), website: "", email: "news@example.org" });
      const councillor = (await db.selectFrom("councillors").select("id").executeTakeFirstOrThrow()).id;
      await v.post(`/councillors/${councillor}/contact`, {
        _csrf: await fresh(`/councillors/${councillor}`),
        website: "",
        name: "Cas Resident",
        email: "contact@example.org",
        message: "The footpath by the school floods.\nCould it be looked at? See https://example.net/photo",
        share: "yes",
      });

      // A report with a photo, forwarded to its department; its reporter follows it and hears of a status change.
      const photo = await jpegWithGps(400, 300);
      const report = await makeReport(
        app,
        { email: "reporter@example.org", name: "Rae Reporter", phone: "01632 960123", shareContact: true },
        null,
        [photo],
      );
      await v.post(`/reports/${report.reference}/follow`, {
        _csrf: await fresh(`/reports/${report.reference}`),
        website: "",
        email: "follower@example.org",
      });
      // "I have seen this too" with an address: the link to confirm it.
      await v.post(`/reports/${report.reference}/seen`, {
        _csrf: await fresh(`/reports/${report.reference}`),
        website: "",
        email: "seen@example.org",
      });
      // A resident's update with an address: the link to publish it.
      await v.post(`/reports/${report.reference}/update`, {
        _csrf: await fresh(`/reports/${report.reference}`),
        website: "",
        "update-note": "Still there this <morning>.",
        email: "updater@example.org",
      });
      await recordReportEvent(db, { civic, now: civic.now(), by: "staff", accountId: null }, report.id, {
        kind: "status",
        to: "in_progress",
        note: "A volunteer is looking <into> it.",
      });
      // "Is it fixed?" once the report has waited its days (reports/questionnaire.ts).
      const later = new Date(civic.now().getTime() + (civic.config.questionnaireAfterDays + 1) * 86_400_000);
      await sendQuestionnaires({ ...civic, now: () => later });

      // Account mail: another address added, an email change asked and confirmed (the old address is told), a
      // password set.
      const mover = new Visitor(app);
      await mover.signIn(h, "mover@example.org");
      await mover.submit("/account", "/account/addresses", { email: "mover.other@example.org" });
      await mover.submit("/account", "/account/email", { email: "mover.new@example.org" });
      const moved = signInMailParts(await h.mailTo("mover.new@example.org"));
      await mover.post("/account/email/confirm", {
        _csrf: tokenIn((await mover.get(moved.path)).body),
        token: moved.token,
      });
      expect(
        (await mover.submit("/account", "/account/password", { password: "mossy gate by the pond" })).statusCode,
      ).toBe(303);

      // Moderation: a decision on a report, a suspension and its end.
      const admin = await signInAs(app, "mail.admin@example.org", "admin");
      const actor = { accountId: admin.accountId, role: "admin" as const };
      await moderate(civic, {
        kind: "report",
        id: report.reference,
        action: "hide",
        reason: "Advert <b>spam</b>",
        actor,
      });
      const resident = await signInAs(app, "suspended@example.org", "resident");
      await suspendAccount(civic, {
        accountId: resident.accountId,
        reason: "Abuse & threats",
        hideContent: false,
        actor,
      });
      await unsuspendAccount(civic, { accountId: resident.accountId, reason: "Appeal upheld", actor });

      // The newsletter: a test to the editor, then the issue to a confirmed subscriber.
      const editor = await signedIn(h, "editor@example.org", "admin");
      const body =
        "## The fair\n\nThe bench is **fixed**. See [the fair](https://fair.example.org/?a=1&b=2), " +
        "[volunteering](/volunteer) or https://example.com/bare.";
      const created = await submitSlowly(h, editor, "/admin/newsletter/new", "/admin/newsletter", {
        title: "Autumn news",
        body,
        action: "save",
      });
      const issuePath = created.headers.location as string;
      await submitSlowly(h, editor, issuePath, issuePath, { title: "Autumn news", body, action: "test" });
      const at = civic.now().toISOString();
      await db
        .insertInto("newsletter_subscribers")
        .values({
          email: "subscriber@example.org",
          status: "confirmed",
          unsubscribe_salt: "salt",
          consent_text: "yes",
          created_at: at,
          confirmed_at: at,
          unsubscribed_at: null,
        })
        .execute();
      const issueId = Number(issuePath.split("/").pop());
      await db
        .updateTable("newsletter_issues")
        .set({ status: "sending", send_started_at: at })
        .where("id", "=", issueId)
        .execute();
      await queueNextBatch(civic, issueId);

      // Alerts for new reports: the confirmation, an alert at once, and the next day's digest.
      await v.post("/alerts", {
        _csrf: await fresh("/alerts"),
        website: "",
        scope: "village",
        frequency: "immediate",
        email: "alert@example.org",
      });
      const alertLink = /http:\/\/civic\.test(\/alerts\/confirm\/[A-Za-z0-9_-]{43})/.exec(
        (await h.mailTo("alert@example.org")).parsed.text ?? "",
      )![1]!;
      await v.post(alertLink, { _csrf: tokenIn((await v.get(alertLink)).body) });
      await db
        .insertInto("report_alerts")
        .values({
          email: "digest@example.org",
          scope: "village",
          place_id: null,
          radius_m: null,
          category_code: null,
          frequency: "daily",
          token_hash: "digest-salt",
          created_at: civic.now().toISOString(),
          confirmed_at: civic.now().toISOString(),
        })
        .execute();
      h.advance(1_000);
      await makeReport(app, { email: "alerted.reporter@example.org" });
      await sendNewReportAlerts(civic);
      h.advance(24 * 60 * 60_000);
      await sendAlertDigests(civic);

      const mails = await db
        .selectFrom("outbox")
        .select(["id", "kind", "subject", "text_body", "html_body"])
        .orderBy("id")
        .execute();
      const byKind = new Map<string, (typeof mails)[number]>();
      for (const m of mails) if (!byKind.has(m.kind)) byKind.set(m.kind, m);

      // Every kind the code can send, and no other.
      const covered = [...byKind.keys()].sort();
      expect(covered).toEqual(kindsInCode());
      expect(covered.length).toBeGreaterThanOrEqual(20);

      const site = civic.site;
      const documents = new Map<string, string>();
      for (const [kind, m] of byKind) {
        const html = m.html_body ?? "";
        expect(html, `${kind} has an HTML part`).toMatch(/^<!doctype html>\n<html lang="en-GB">/);
        documents.set(kind, html);
        expect(html, kind).toContain('<meta name="color-scheme" content="light dark">');
        // Nothing fetched: no images, stylesheets, frames or scripts; no CSS that loads anything.
        expect(html, kind).not.toMatch(/<(img|link|script|iframe|object|embed|picture|source|video|audio)\b/i);
        expect(html, kind).not.toMatch(/\s(src|srcset|background|poster)=/i);
        expect(html, kind).not.toMatch(/url\(|@import/i);
        // Every link is an absolute http(s) address, written out in the text part.
        const hrefs = [...html.matchAll(/<a\b[^>]*\shref="([^"]*)"/g)].map((x) => unescape(x[1]!));
        expect(hrefs.length, kind).toBeGreaterThan(0);
        for (const href of hrefs) {
          expect(href, kind).toMatch(/^https?:\/\//);
          expect(m.text_body, `${kind}: the text part has ${href}`).toContain(href);
        }
        expect([...html.matchAll(/\shref=/g)].length, `${kind}: href only on links`).toBe(hrefs.length);
        // The heading and the footer, in both parts.
        const heading = unescape(/<h1\b[^>]*>([^<]*)<\/h1>/.exec(html)?.[1] ?? "");
        expect(heading, kind).not.toBe("");
        expect(m.text_body.split("\n")[0], kind).toBe(heading);
        expect(html, kind).toContain(`<title>${/<h1\b[^>]*>([^<]*)<\/h1>/.exec(html)?.[1]}</title>`);
        expect(html, kind).toMatch(/<footer\b[^>]*>[\s\S]*Run by volunteers\. Questions: [\s\S]*<\/footer>/);
        expect(m.text_body, kind).toContain(`\n-- \n${site.villageName} Community Platform\n${site.baseUrl}/\n`);
        expect(m.text_body, kind).toContain(`Run by volunteers. Questions: ${site.contactEmail}`);
      }
      // Text someone typed is escaped, never markup.
      expect(byKind.get("report-status")?.html_body).toContain("A volunteer is looking &lt;into&gt; it.");
      expect(byKind.get("moderation-decision")?.html_body).toContain("Advert &lt;b&gt;spam&lt;/b&gt;");
      // A newsletter's local link works from a mailbox.
      expect(byKind.get("newsletter")?.html_body).toContain(`href="${site.baseUrl}/volunteer"`);
      // Unsubscribe headers stay where they were.
      const headers = await db
        .selectFrom("outbox")
        .select(["kind", "headers"])
        .where("kind", "in", ["newsletter", "report-status", "report-alert", "report-alert-digest"])
        .execute();
      for (const row of headers) expect(row.headers, row.kind).toContain("List-Unsubscribe-Post");

      expect(await nuErrors(documents)).toEqual([]);
    },
    180_000,
  );
});
