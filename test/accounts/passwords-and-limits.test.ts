import { afterAll, beforeAll, expect, it } from "vitest";
import { passwordProblem } from "../../src/accounts/passwords.js";
import { FixedWindowLimiter } from "../../src/core/limits/fixed-window.js";
import { describeEachDb } from "../helpers/app.js";
import { type AccountsHarness, accountsHarness, Visitor } from "./support.js";

it("refuses short, common and address-like passwords", () => {
  expect(passwordProblem("short", "a@example.org")).toMatch(/at least 10/);
  expect(passwordProblem("password123", "a@example.org")).toMatch(/too common/);
  expect(passwordProblem("QWERTYUIOP", "a@example.org")).toMatch(/too common/);
  expect(passwordProblem("aaaaaaaaaaaa", "a@example.org")).toMatch(/too common/);
  expect(passwordProblem("jo.bloggs@example.org", "jo.bloggs@example.org")).toMatch(/email address/);
  expect(passwordProblem("jo.bloggs-2026!", "jo.bloggs@example.org")).toMatch(/email address/);
  expect(passwordProblem("x".repeat(201) + "yz", "a@example.org")).toMatch(/at most/);
  expect(passwordProblem("correct horse battery staple", "a@example.org")).toBeNull();
});

describeEachDb("passwords and brute-force limits", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  it("sets a password with the rules explained on the form, and signs in with it", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "una@example.org");
    const weak = await v.submit("/account", "/account/password", { password: "1234567890" });
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toContain("too common");
    const set = await v.submit("/account", "/account/password", { password: "mossy gate by the pond" });
    expect(set.statusCode).toBe(303);
    const row = await h.t.db.database.db
      .selectFrom("accounts")
      .select("password_hash")
      .where("email", "=", "una@example.org")
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);

    const w = new Visitor(h.app);
    const wrong = await w.submit("/sign-in", "/sign-in/password", {
      email: "una@example.org",
      password: "mossy gate by the lake",
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('value="una@example.org"');
    const right = await w.submit("/sign-in", "/sign-in/password", {
      email: "UNA@example.org",
      password: "mossy gate by the pond",
    });
    expect(right.statusCode).toBe(303);
    expect(w.cookie).not.toBeNull();
  });

  it("limits password attempts per address with 429 and Retry-After, the same for unknown addresses", async () => {
    const answers: Record<string, { status: number; retry: unknown; body: string }> = {};
    for (const email of ["una@example.org", "nobody-at-all@example.org"]) {
      const v = new Visitor(h.app, `client-${email}`);
      let last = null;
      for (let i = 0; i < 11; i++) {
        last = await h.app.inject({
          method: "POST",
          url: "/sign-in/password",
          remoteAddress: `10.0.0.${email.length}`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({
            _csrf: (await v.get("/sign-in")).body.match(/name="_csrf" value="([^"]+)"/)![1]!,
            email,
            password: `guess number ${i}`,
          }).toString(),
        });
      }
      answers[email] = {
        status: last!.statusCode,
        retry: last!.headers["retry-after"],
        body: last!.body.replace(/(value|data-csrf)="[^"]*"/g, ""),
      };
    }
    const [a, b] = Object.values(answers);
    expect(a!.status).toBe(429);
    expect(Number(a!.retry)).toBeGreaterThan(0);
    expect(a!.body).toContain("Too many attempts");
    expect(b!.status).toBe(a!.status);
    expect(b!.body).toBe(a!.body);
    // Even the right password waits until the window has passed.
    h.advance(16 * 60_000);
    const v = new Visitor(h.app);
    expect(
      (
        await v.submit("/sign-in", "/sign-in/password", {
          email: "una@example.org",
          password: "mossy gate by the pond",
        })
      ).statusCode,
    ).toBe(303);
  });

  it("limits sign-in messages per address and keeps the typed address", async () => {
    const v = new Visitor(h.app);
    let last = null;
    for (let i = 0; i < 6; i++) last = await v.submit("/sign-in", "/sign-in/email", { email: "vic@example.org" });
    expect(last!.statusCode).toBe(429);
    expect(last!.headers["retry-after"]).toBeDefined();
    expect(last!.body).toContain('value="vic@example.org"');
    const queued = await h.t.db.database.db
      .selectFrom("outbox")
      .select("id")
      .where("to_address", "=", "vic@example.org")
      .execute();
    expect(queued).toHaveLength(5);
  });

  it("counts in the database, so two processes share one limit", async () => {
    const other = h.t.db.reopen();
    try {
      const limit = { name: "test-shared", max: 3, windowMs: 60_000 };
      const now = () => new Date();
      const a = new FixedWindowLimiter(() => h.t.db.database.db, "secret-secret-secret-secret-secret", now);
      const b = new FixedWindowLimiter(() => other.db, "secret-secret-secret-secret-secret", now);
      expect((await a.hit(limit, "x")).allowed).toBe(true);
      expect((await b.hit(limit, "x")).allowed).toBe(true);
      expect((await a.hit(limit, "x")).allowed).toBe(true);
      expect((await b.hit(limit, "x")).allowed).toBe(false);
      expect((await b.hit(limit, "y")).allowed).toBe(true);
      const keys = await other.db.selectFrom("rate_limit_counters").select("key").execute();
      expect(JSON.stringify(keys)).not.toContain('"test-shared:x"');
    } finally {
      await other.close();
    }
  });
});
