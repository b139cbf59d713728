import { afterAll, beforeAll, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * Issue 27 #12: auto-hiding needs independent flaggers (confirmed accounts at least a week old, at most one per
 * client address, an IPv6 /64 counting as one address); any other flag only puts the item in the moderation queue.
 */
describeEachDb("auto-hide counts only independent flaggers", (dialect) => {
  let t: TestApp;
  let moderator: SignedIn;
  let n = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { AUTO_HIDE_FLAGS: "3", RATE_LIMIT_WRITE_MAX: "1000" } });
    moderator = await signInAs(t.app, "moderator@example.org", "moderator");
  });
  afterAll(async () => t?.close());

  /** A signed-in resident whose account was made `days` ago (confirmed by signing in by email). */
  async function resident(days: number): Promise<SignedIn> {
    const who = await signInAs(t.app, `flagger-${++n}@example.org`, "resident");
    const at = new Date(t.app.civic.now().getTime() - days * 86_400_000).toISOString();
    await t.app.civic.database.db
      .updateTable("accounts")
      .set({ created_at: at })
      .where("id", "=", who.accountId)
      .execute();
    return who;
  }

  async function flag(reference: string, client: string, who?: SignedIn) {
    const headers: Record<string, string> = who ? { cookie: who.cookie } : {};
    const url = `/report-this/report/${reference}`;
    const form = await t.app.inject({ method: "GET", url, remoteAddress: client, headers });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? "";
    const res = await t.app.inject({
      method: "POST",
      url,
      remoteAddress: client,
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded", origin: "http://civic.test" },
      payload: new URLSearchParams({ _csrf: csrf, reason: "spam", note: "" }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res;
  }
  const isPublic = async (reference: string) =>
    (await t.app.inject({ method: "GET", url: `/reports/${reference}` })).statusCode === 200;
  const newReport = async () => (await submitReport(t.app.civic, reportSubmission())).reference;

  it("one anonymous flag, two from brand-new accounts and one from an unconfirmed account only queue the report", async () => {
    const reference = await newReport();
    await flag(reference, "192.0.2.10");
    await flag(reference, "192.0.2.11", await resident(0));
    await flag(reference, "192.0.2.12", await resident(0));
    expect(await isPublic(reference)).toBe(true);
    // Nor does an old account that never confirmed its address.
    const unconfirmed = await resident(30);
    await t.app.civic.database.db
      .updateTable("accounts")
      .set({ email_verified_at: null })
      .where("id", "=", unconfirmed.accountId)
      .execute();
    await flag(reference, "192.0.2.13", unconfirmed);
    expect(await isPublic(reference)).toBe(true);
    const queue = (await moderator.get("/admin/moderation")).body;
    expect(queue).toContain(reference);
    expect(queue).toContain("Flags (4; 0 from independent flaggers");
  });

  it("several old accounts from one IPv6 /64 count as one flagger", async () => {
    const reference = await newReport();
    await flag(reference, "2001:db8:1:2::1", await resident(30));
    await flag(reference, "2001:db8:1:2::ffff", await resident(30));
    await flag(reference, "2001:db8:1:2:aaaa::7", await resident(30));
    expect(await isPublic(reference)).toBe(true);
    const queue = (await moderator.get("/admin/moderation")).body;
    expect(queue).toContain(reference);
    expect(queue).toContain("Flags (3; 1 from independent flaggers");
  });

  it("an anonymous client cannot flag the same item again on another day", async () => {
    const reference = await newReport();
    const real = t.app.civic.now;
    try {
      await flag(reference, "198.51.100.20");
      t.app.civic.now = () => new Date(real().getTime() + 86_400_000);
      await flag(reference, "198.51.100.20");
      t.app.civic.now = () => new Date(real().getTime() + 2 * 86_400_000);
      await flag(reference, "198.51.100.20");
    } finally {
      t.app.civic.now = real;
    }
    const rows = await t.app.civic.database.db
      .selectFrom("moderation_flags")
      .select("id")
      .where("item_id", "=", reference)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it("three confirmed accounts older than a week, from three addresses, hide the report", async () => {
    const reference = await newReport();
    await flag(reference, "203.0.113.1", await resident(8));
    await flag(reference, "2001:db8:9:1::1", await resident(8));
    expect(await isPublic(reference)).toBe(true);
    const third = await flag(reference, "203.0.113.3", await resident(8));
    expect(third.body).toContain("hidden until a moderator");
    expect(await isPublic(reference)).toBe(false);
  });
});
