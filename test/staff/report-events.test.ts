import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Viewer } from "../../src/core/viewer.js";
import { moderate, redactReport, restoreReportText } from "../../src/moderation/decisions.js";
import { recordReportEvent, type ReportEventContext } from "../../src/reports/events.js";
import { staffChangeStatus } from "../../src/reports/staff/triage.js";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** One path for report events (src/reports/events.ts): nothing else writes a report's status or text. */
describe("a report's status and text are written by the one path only", () => {
  const root = join(import.meta.dirname, "../..");
  /** The files that may write these columns of `reports`, each with why. */
  const ALLOWED: Record<string, string> = {
    "src/reports/events.ts": "the one path for report events",
  };
  const COLUMNS = /\b(status|title|description|original_title|original_description)\s*:/;

  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === "migrations" ? [] : sources(path);
      return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
    });
  }

  /** Each `updateTable("reports")` call's `.set(...)` argument (to its closing parenthesis), and raw updates. */
  function reportWrites(text: string): string[] {
    const found: string[] = [];
    for (const m of text.matchAll(/updateTable\(\s*"reports"\s*\)/g)) {
      const from = m.index + m[0].length;
      const set = text.indexOf(".set(", from);
      if (set < 0) continue;
      let depth = 0;
      let end = set + 4;
      for (; end < text.length; end++) {
        if (text[end] === "(") depth++;
        if (text[end] === ")" && --depth === 0) break;
      }
      found.push(text.slice(set, end + 1));
    }
    for (const m of text.matchAll(/update\s+reports\s+set\s+[^`]*/gi)) found.push(m[0]);
    return found;
  }

  const writesStatusOrText = (w: string) => COLUMNS.test(w) || /\bset\s+(status|title|description)\b/i.test(w);

  it("finds no other file that sets status, title or description of reports", () => {
    const offenders = sources(join(root, "src"))
      .map((path) => relative(root, path).replaceAll("\\", "/"))
      .filter((path) => !(path in ALLOWED))
      .filter((path) => reportWrites(readFileSync(join(root, path), "utf8")).some(writesStatusOrText));
    expect(offenders).toEqual([]);
  });

  it("would catch a copy of a status change (the scan itself works)", () => {
    const copy = `await tx.updateTable("reports").set({ status: to, updated_at: iso }).where("id", "=", id).execute();`;
    expect(reportWrites(copy).some(writesStatusOrText)).toBe(true);
    expect(reportWrites("await sql`update reports set status = 'fixed'`.execute(db);").some(writesStatusOrText)).toBe(
      true,
    );
    const fine = `await tx.updateTable("reports").set({ forwarded_at: now }).where("id", "=", id).execute();`;
    expect(reportWrites(fine).some(writesStatusOrText)).toBe(false);
  });
});

describeEachDb("report events: one row, one audit row and one mail each, once", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  const db = () => h.app.civic.database.db;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    moderator = await signInAs(h.app, "events-mod@example.org", "moderator");
  });
  afterAll(async () => h?.close());

  async function reportWithFollowers(n: number) {
    const report = await makeReport(h.app, { email: "events-reporter@example.org" });
    const at = h.app.civic.now().toISOString();
    for (let i = 0; i < n; i++) {
      await db()
        .insertInto("report_followers")
        .values({
          report_id: report.id,
          email: `events-follower-${report.id}-${i}@example.org`,
          token_hash: `salt-${report.id}-${i}`,
          created_at: at,
          confirmed_at: at,
        })
        .execute();
    }
    return report;
  }

  async function counts(report: { id: number; reference: string }) {
    const [updates, audit, mails] = await Promise.all([
      db()
        .selectFrom("report_updates")
        .selectAll()
        .where("report_id", "=", report.id)
        .where("event", "!=", "report")
        .execute(),
      db()
        .selectFrom("audit_log")
        .select(["action", "actor_id"])
        .where("item_type", "=", "report")
        .where("item_id", "=", report.reference)
        .execute(),
      db()
        .selectFrom("outbox")
        .select("to_address")
        .where("kind", "=", "report-status")
        .where("subject", "like", `%${report.reference}%`)
        .execute(),
    ]);
    return { updates, audit, mails: mails.map((m) => m.to_address).sort() };
  }

  it("makes one update row, one audit row and one mail per follower for racing status changes", async () => {
    const report = await reportWithFollowers(3);
    const civic = h.app.civic;
    // staffChangeStatus reads only the account of its viewer.
    const viewer = { accountId: moderator.accountId, role: "moderator" } as Viewer;
    const input = { status: "investigating", note: "A volunteer is looking into it.", expected: "open" };
    const results = await Promise.allSettled(
      [0, 1, 2, 3].map(() => staffChangeStatus(civic, viewer, report.reference, input)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as { code?: string }).code).toBe("validation_failed");
    }
    const c = await counts(report);
    expect(c.updates).toHaveLength(1);
    expect(c.updates[0]).toMatchObject({
      status: "investigating",
      previous_status: "open",
      author_kind: "staff",
      event: "status",
      internal: 0,
      author_account_id: null,
    });
    expect(c.audit).toEqual([{ action: "report.status", actor_id: moderator.accountId }]);
    expect(c.mails).toEqual(
      ["events-reporter@example.org", ...[0, 1, 2].map((i) => `events-follower-${report.id}-${i}@example.org`)].sort(),
    );
    expect(
      (await db().selectFrom("reports").select("status").where("id", "=", report.id).executeTakeFirstOrThrow()).status,
    ).toBe("investigating");
  });

  it("records an event sent twice with one key once, whichever call wins", async () => {
    const report = await reportWithFollowers(2);
    const ctx: ReportEventContext = {
      civic: h.app.civic,
      now: h.app.civic.now(),
      by: "resident",
      accountId: null,
      email: "events-resident@example.org",
      key: `resident-update:${report.reference}:1`,
    };
    const event = { kind: "update" as const, note: "Still there this morning." };
    const results = await Promise.allSettled([0, 1, 2].map(() => recordReportEvent(db(), ctx, report.id, event)));
    const done = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(done.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(done.map((r) => r.updateId)).size).toBe(1);
    const again = await recordReportEvent(db(), ctx, report.id, event);
    expect(again.created).toBe(false);
    const c = await counts(report);
    expect(c.updates).toHaveLength(1);
    expect(c.updates[0]).toMatchObject({
      author_kind: "resident",
      event: "update",
      author_email: "events-resident@example.org",
      note: "Still there this morning.",
    });
    // A resident's update is no staff action: no audit row; the reporter and each follower are told once.
    expect(c.audit).toEqual([]);
    expect(c.mails).toEqual(
      ["events-reporter@example.org", ...[0, 1].map((i) => `events-follower-${report.id}-${i}@example.org`)].sort(),
    );
  });

  it("refuses a resident's event on a report the public cannot see", async () => {
    const report = await makeReport(h.app, { email: null });
    await moderate(h.app.civic, {
      kind: "report",
      id: report.reference,
      action: "hide",
      reason: "Spam",
      actor: { accountId: moderator.accountId, role: "moderator" },
    });
    const err = await recordReportEvent(
      db(),
      { civic: h.app.civic, now: h.app.civic.now(), by: "resident", accountId: null },
      report.id,
      { kind: "seen" },
    ).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("not_found");
    // The hide itself is an internal event row, not in the public history.
    const rows = await db().selectFrom("report_updates").selectAll().where("report_id", "=", report.id).execute();
    expect(rows.filter((r) => r.event === "moderation")).toMatchObject([
      { action: "hide", internal: 1, author_kind: "staff", note: "" },
    ]);
  });

  it("redacts through the report's moderated kind and the one path: the decision's audit row and an event row", async () => {
    const report = await makeReport(h.app, { email: "events-redacted@example.org" });
    const actor = { accountId: moderator.accountId, role: "moderator" as const };
    await redactReport(h.app.civic, {
      reference: report.reference,
      title: "Pothole",
      description: "A hole on the corner.",
      reason: "Personal details",
      actor,
    });
    const row = await db()
      .selectFrom("reports")
      .select(["title", "description", "original_title", "original_description", "moderated_at"])
      .where("id", "=", report.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      title: "Pothole",
      description: "A hole on the corner.",
      original_title: "Pothole by the war memorial",
      original_description: "Deep hole on the corner.",
    });
    expect(row.moderated_at).not.toBeNull();
    const c = await counts(report);
    expect(c.updates).toMatchObject([
      { event: "moderation", action: "redact", author_kind: "staff", internal: 1, note: "", status: "open" },
    ]);
    expect(c.audit).toEqual([{ action: "moderation.redact", actor_id: actor.accountId }]);
    // The public history does not show the record of moderation.
    const page = await h.app.inject({ method: "GET", url: `/reports/${report.reference}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain("redact");

    const admin = await signInAs(h.app, "events-admin@example.org", "admin");
    await restoreReportText(h.app.civic, {
      reference: report.reference,
      reason: "Appeal",
      actor: { accountId: admin.accountId, role: "admin" },
    });
    const restored = await counts(report);
    expect(restored.updates.map((u) => u.action)).toEqual(["redact", "restore"]);
    expect(
      await db()
        .selectFrom("reports")
        .select(["title", "original_title"])
        .where("id", "=", report.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ title: "Pothole by the war memorial", original_title: null });
  });

  it("answers the questionnaire through the transition table, and records 'seen too' without mail", async () => {
    const report = await reportWithFollowers(1);
    const civic = h.app.civic;
    const reporter: ReportEventContext = {
      civic,
      now: civic.now(),
      by: "reporter",
      accountId: null,
      email: "events-reporter@example.org",
    };
    const fixed = await recordReportEvent(db(), reporter, report.id, { kind: "questionnaire", fixed: true, note: "" });
    expect(fixed).toMatchObject({ from: "open", to: "fixed", created: true, mailed: 1 });
    const seen = await recordReportEvent(
      db(),
      { civic, now: civic.now(), by: "resident", accountId: null },
      report.id,
      {
        kind: "seen",
      },
    );
    expect(seen).toMatchObject({ to: "fixed", mailed: 0 });
    const c = await counts(report);
    expect(c.updates.map((u) => [u.event, u.note, u.internal])).toEqual([
      ["questionnaire", "The reporter says this is fixed.", 0],
      ["seen", "", 1],
    ]);
    // Only the follower hears: the reporter made the update.
    expect(c.mails).toEqual([`events-follower-${report.id}-0@example.org`]);
    expect(c.audit).toEqual([{ action: "report.status", actor_id: null }]);
  });
});
