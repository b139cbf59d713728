import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retentionJob } from "../../src/core/jobs/retention.js";
import { clientKey } from "../../src/core/http/client-address.js";
import { describeEachDb } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";
import { type AccountsHarness, accountsHarness, hiddenIn, signInMailParts, tokenIn, Visitor } from "./support.js";

/** Issue 27, items 1, 13 and 14: sign-in codes that cannot be raced, per-client limits, headers, the last admin. */

describe("the client key of per-client limits", () => {
  it("keeps IPv4 as it is, groups IPv6 by /64 and unwraps IPv4-mapped IPv6", () => {
    expect(clientKey("192.0.2.7")).toBe("192.0.2.7");
    expect(clientKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(clientKey("::ffff:c000:207")).toBe("192.0.2.7");
    expect(clientKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0DB8:0001:0002:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:2:3:4:192.0.2.1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
    // Not an address (a test double, a unix socket): kept as it is, so it still counts as one client.
    expect(clientKey("")).toBe("");
    expect(clientKey("not an address")).toBe("not an address");
  });
});

describeEachDb("sign-in trust", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  async function askForCode(email: string) {
    const v = new Visitor(h.app);
    const asked = await v.submit("/sign-in", "/sign-in/email", { email });
    const handle = hiddenIn(asked.body, "handle");
    const { code } = signInMailParts(await h.mailTo(email));
    return { v, handle, code, csrf: tokenIn(asked.body) };
  }

  /** One code guess from a client address of its own, as a separate browser would send it. */
  async function guess(handle: string, code: string, remoteAddress: string) {
    const csrf = tokenIn((await h.app.inject({ method: "GET", url: "/sign-in", remoteAddress })).body);
    return h.app.inject({
      method: "POST",
      url: "/sign-in/code",
      remoteAddress,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: csrf, handle, code }).toString(),
    });
  }

  const wrongFor = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");

  it("checks at most five of forty codes sent at once, and the right code after them does not sign in", async () => {
    const { handle, code } = await askForCode("race@example.org");
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => guess(handle, wrongFor(code, i), `198.51.100.${i % 10}`)),
    );
    expect(answers.every((a) => a.statusCode === 400)).toBe(true);
    const checked = answers.filter((a) => a.body.includes("That code is not right")).length;
    // The fifth wrong code is checked too, and answered "no longer works".
    expect(checked).toBeLessThanOrEqual(4);
    const row = await h.t.db.database.db
      .selectFrom("email_challenges")
      .select(["failed_attempts"])
      .where("email", "=", "race@example.org")
      .executeTakeFirstOrThrow();
    expect(row.failed_attempts).toBeLessThanOrEqual(5);
    // The link in the message ended too (by time: nobody used it, so the lock-out relief may give it to the owner).
    const link = await h.t.db.database.db
      .selectFrom("email_links")
      .select(["expires_at", "uses"])
      .where("purpose", "=", "sign-in")
      .where("email", "=", "race@example.org")
      .executeTakeFirstOrThrow();
    expect(new Date(link.expires_at).getTime()).toBeLessThanOrEqual(h.app.civic.now().getTime());
    expect(Number(link.uses)).toBe(0);

    const right = await guess(handle, code, "198.51.100.200");
    expect(right.statusCode).toBe(400);
    expect(right.body).toContain("no longer works");
    expect(right.headers["set-cookie"]).toBeUndefined();
  });

  it("checks at most five codes when the right one is among forty sent at once", async () => {
    const { handle, code } = await askForCode("race2@example.org");
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 30 ? code : wrongFor(code, i)));
    const answers = await Promise.all(guesses.map((c, i) => guess(handle, c, `203.0.113.${i % 10}`)));
    const signedIn = answers.filter((a) => a.statusCode === 303).length;
    const wrong = answers.filter((a) => a.body.includes("That code is not right")).length;
    const endedByFifth = answers.filter((a) => a.body.includes("no longer works")).length > 0 ? 1 : 0;
    expect(signedIn).toBeLessThanOrEqual(1);
    expect(signedIn + wrong).toBeLessThanOrEqual(5);
    expect(signedIn + wrong + endedByFifth).toBeGreaterThanOrEqual(1);
    const row = await h.t.db.database.db
      .selectFrom("email_challenges")
      .select(["failed_attempts"])
      .where("email", "=", "race2@example.org")
      .executeTakeFirstOrThrow();
    expect(row.failed_attempts).toBeLessThanOrEqual(5);
  });

  it("counts a whole IPv6 /64 as one client for the per-client limits", async () => {
    // The message limit per client is 20 an hour: addresses that differ only below /64 are one client.
    let last = null;
    for (let i = 1; i <= 21; i++) {
      const remoteAddress = `2001:db8:77:1:${i.toString(16)}::${i}`;
      const csrf = tokenIn((await h.app.inject({ method: "GET", url: "/sign-in", remoteAddress })).body);
      last = await h.app.inject({
        method: "POST",
        url: "/sign-in/email",
        remoteAddress,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: csrf, email: `v6-${i}@example.org` }).toString(),
      });
      if (i <= 20) expect(last.statusCode).toBe(200);
    }
    expect(last!.statusCode).toBe(429);
    // Another /64 is another client.
    const other = "2001:db8:77:2::1";
    const csrf = tokenIn((await h.app.inject({ method: "GET", url: "/sign-in", remoteAddress: other })).body);
    const fresh = await h.app.inject({
      method: "POST",
      url: "/sign-in/email",
      remoteAddress: other,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: csrf, email: "v6-other@example.org" }).toString(),
    });
    expect(fresh.statusCode).toBe(200);
  });

  it("encodes the page to come back to in the Location header (next=/✓ by password, by link)", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "tick@example.org");
    const set = await v.submit("/account", "/account/password", { password: "mossy gate by the pond" });
    expect(set.statusCode).toBe(303);

    const w = new Visitor(h.app);
    const byPassword = await w.submit("/sign-in", "/sign-in/password", {
      email: "tick@example.org",
      password: "mossy gate by the pond",
      next: "/✓",
    });
    expect(byPassword.statusCode).toBe(303);
    expect(byPassword.headers.location).toBe("/%E2%9C%93");
    expect(w.cookie).not.toBeNull();
    // Latin-1 letters go as UTF-8 escapes too (Node would send them as single bytes); control characters are
    // refused before any route runs (core/http/input.ts).
    const accented = await new Visitor(h.app).submit("/sign-in", "/sign-in/password", {
      email: "tick@example.org",
      password: "mossy gate by the pond",
      next: "/café?x=é",
    });
    expect(accented.statusCode).toBe(303);
    expect(accented.headers.location).toBe("/caf%C3%A9?x=%C3%A9");
    const control = await new Visitor(h.app).submit("/sign-in", "/sign-in/password", {
      email: "tick@example.org",
      password: "mossy gate by the pond",
      next: "/a\u0001b",
    });
    expect(control.statusCode).toBe(400);

    // The emailed link: it signs in (it is used up only by an answer that works).
    const x = new Visitor(h.app);
    await x.submit("/sign-in", "/sign-in/email", { email: "tick@example.org", next: "/✓" });
    const { path, token } = signInMailParts(await h.mailTo("tick@example.org"));
    const page = await x.get(`${path}?next=${encodeURIComponent("/✓")}`);
    const done = await x.post("/sign-in/link", { _csrf: tokenIn(page.body), token, next: "/✓" });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/%E2%9C%93");
    expect(x.cookie).not.toBeNull();

    // A page that asks for sign-in sends its own address along, encoded.
    const back = await h.app.inject({ method: "GET", url: "/account/reports?x=✓" });
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toMatch(/^\/sign-in\?next=[\x21-\x7e]+$/);
  });

  it("keeps at least one active admin: no deleting, demoting or suspending the last one", async () => {
    const db = h.t.db.database.db;
    const ada = await signInAs(h.app, "ada@example.org", "admin");
    // Another admin who is suspended cannot administer anything, so does not count.
    const ben = await signInAs(h.app, "ben@example.org", "admin");
    await db
      .updateTable("accounts")
      .set({ suspended_at: new Date().toISOString(), suspended_reason: "test" })
      .where("id", "=", ben.accountId)
      .execute();

    const deleted = await ada.post("/account/delete", { confirm: "yes" }, "/account/delete");
    expect(deleted.statusCode).toBe(409);
    expect(deleted.body).toContain("last administrator");
    expect(
      await db.selectFrom("accounts").select("id").where("id", "=", ada.accountId).executeTakeFirst(),
    ).toBeDefined();

    const demoted = await ada.post("/admin/staff", { email: "ada@example.org", role: "moderator" }, "/admin/staff");
    expect(demoted.statusCode).toBe(400);
    expect(demoted.body).toContain("last administrator");

    const suspended = await ada.post(
      "/admin/moderation/account/suspend",
      { account: ada.accountId, reason: "testing" },
      "/admin/staff",
    );
    // The one policy refuses suspending oneself before the last-admin rule is asked (core/policy.ts).
    expect(suspended.statusCode).toBe(403);
    expect(suspended.body).toContain("nobody can suspend their own account");
    const still = await db
      .selectFrom("accounts")
      .select(["role", "suspended_at"])
      .where("id", "=", ada.accountId)
      .executeTakeFirstOrThrow();
    expect(still).toEqual({ role: "admin", suspended_at: null });

    // With a second active admin, either may go; two demoting each other at once leave one.
    await db
      .updateTable("accounts")
      .set({ suspended_at: null, suspended_reason: null })
      .where("id", "=", ben.accountId)
      .execute();
    // Both forms are open before either is sent (fetching a form after the other demotion has landed is a 403).
    const demote = async (by: typeof ada, email: string, csrf: string) =>
      h.app.inject({
        method: "POST",
        url: "/admin/staff",
        headers: { cookie: by.cookie, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: csrf, email, role: "resident" }).toString(),
      });
    const adaForm = await ada.token("/admin/staff");
    const benForm = await ben.token("/admin/staff");
    const [a, b] = await Promise.all([
      demote(ada, "ben@example.org", adaForm),
      demote(ben, "ada@example.org", benForm),
    ]);
    // The other is refused: by the rule, or because its author is no longer an admin by the time it arrives.
    expect([a.statusCode, b.statusCode].filter((s) => s === 303)).toHaveLength(1);
    const admins = await db
      .selectFrom("accounts")
      .select("id")
      .where("role", "=", "admin")
      .where("suspended_at", "is", null)
      .execute();
    expect(admins).toHaveLength(1);
  });
});

describe("header-safe redirects", () => {
  it("encodes what a header cannot carry and keeps what it can", async () => {
    const { headerSafeUrl, localPath } = await import("../../src/core/http/redirect.js");
    expect(headerSafeUrl("/sign-in?next=%2Faccount")).toBe("/sign-in?next=%2Faccount");
    expect(headerSafeUrl("/✓")).toBe("/%E2%9C%93");
    expect(headerSafeUrl("/a\ud800b")).toBe("/a%EF%BF%BDb");
    expect(headerSafeUrl("/a b\r\nx")).toBe("/a%20b%0D%0Ax");
    expect(localPath("//evil.example")).toBe("");
    expect(localPath("/\\evil.example")).toBe("");
    expect(localPath("/a\u0085b")).toBe("");
    expect(localPath("https://evil.example/")).toBe("");
    expect(localPath("/ideas/3?x=✓")).toBe("/ideas/3?x=✓");
  });
});

describeEachDb("sensitive account changes", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  const account = (email: string) =>
    h.t.db.database.db.selectFrom("accounts").selectAll().where("email", "=", email).executeTakeFirst();

  it("asks for a recent sign-in before changing the email address, password or passkeys", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "stale@example.org");
    h.advance(16 * 60_000);
    const again = "/sign-in?again=1&next=%2Faccount";
    for (const [action, fields] of [
      ["/account/password", { password: "mossy gate by the pond" }],
      ["/account/password/remove", {}],
      ["/account/email", { email: "elsewhere@example.org" }],
      ["/account/passkeys/delete", { id: "x" }],
    ] as const) {
      const res = await v.submit("/account", action, fields);
      expect(res.statusCode, action).toBe(303);
      expect(res.headers.location, action).toBe(again);
    }
    expect((await account("stale@example.org"))!.password_hash).toBeNull();
    const queued = await h.t.db.database.db
      .selectFrom("outbox")
      .select("id")
      .where("to_address", "=", "elsewhere@example.org")
      .execute();
    expect(queued).toHaveLength(0);
    const page = await v.get(again);
    expect(page.body).toContain("please sign in again first");

    // Passkeys are added through JSON: a 403 that says where to go.
    const csrf = tokenIn((await v.get("/account")).body);
    const options = await h.app.inject({
      method: "POST",
      url: "/account/passkeys/options",
      headers: { cookie: v.cookie!, "content-type": "application/json" },
      payload: { _csrf: csrf },
    });
    expect(options.statusCode).toBe(403);
    expect(options.json()).toMatchObject({ redirect: again });

    // Signing in again makes the session recent.
    await v.signIn(h, "stale@example.org");
    const set = await v.submit("/account", "/account/password", { password: "mossy gate by the pond" });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe("/account?done=password");
  });

  it("tells the address about a new password and ends the other sessions", async () => {
    const laptop = new Visitor(h.app);
    const phone = new Visitor(h.app);
    await laptop.signIn(h, "pat@example.org");
    await phone.signIn(h, "pat@example.org");
    const set = await phone.submit("/account", "/account/password", { password: "mossy gate by the pond" });
    expect(set.statusCode).toBe(303);
    const mail = await h.mailTo("pat@example.org");
    expect(mail.parsed.subject).toContain("A change to how you sign in");
    expect(mail.parsed.text).toContain("a new password was set");
    expect((await phone.get("/account")).statusCode).toBe(200);
    expect((await laptop.get("/account")).statusCode).toBe(303);

    // Removing it does the same.
    await laptop.signIn(h, "pat@example.org");
    const removed = await phone.submit("/account", "/account/password/remove", {});
    expect(removed.statusCode).toBe(303);
    expect((await h.mailTo("pat@example.org")).parsed.text).toContain("the password was removed");
    expect((await laptop.get("/account")).statusCode).toBe(303);
  });

  it("mails the old address when the email changes, with a single-use link that undoes it and ends every session", async () => {
    const laptop = new Visitor(h.app);
    const phone = new Visitor(h.app);
    await laptop.signIn(h, "old@example.org");
    await phone.signIn(h, "old@example.org");
    const asked = await phone.submit("/account", "/account/email", { email: "new@example.org" });
    expect(asked.statusCode).toBe(303);
    const { path, token } = signInMailParts(await h.mailTo("new@example.org"));
    const page = await phone.get(path);
    const confirmed = await phone.post("/account/email/confirm", { _csrf: tokenIn(page.body), token });
    expect(confirmed.statusCode).toBe(303);
    expect(await account("new@example.org")).toBeDefined();
    expect((await laptop.get("/account")).statusCode).toBe(303);
    expect((await phone.get("/account")).statusCode).toBe(200);

    const told = await h.mailTo("old@example.org");
    expect(told.parsed.subject).toContain("was changed");
    expect(told.parsed.subject).not.toContain("new@example.org");
    const undo = /\/account\/email\/undo\/[A-Za-z0-9_-]{43}/.exec(told.parsed.text ?? "")![0];
    const undoToken = undo.split("/").pop()!;

    // Someone who has the new address asks for another change meanwhile: the undo cancels it.
    const pending = await phone.submit("/account", "/account/email", { email: "third@example.org" });
    expect(pending.statusCode).toBe(303);
    const third = signInMailParts(await h.mailTo("third@example.org"));

    // The owner opens the link on another device, not signed in: a page with a button; nothing used up yet.
    const owner = new Visitor(h.app);
    const opened = await owner.get(undo);
    expect(opened.statusCode).toBe(200);
    expect(opened.headers["set-cookie"]).toBeUndefined();
    const done = await owner.post("/account/email/undo", { _csrf: tokenIn(opened.body), token: undoToken });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Your email address is back");
    expect(await account("old@example.org")).toBeDefined();
    expect(await account("new@example.org")).toBeUndefined();
    expect((await phone.get("/account")).statusCode).toBe(303);

    const late = await owner.get(third.path);
    expect(late.statusCode).toBe(410);
    const reused = await owner.post("/account/email/undo", { _csrf: tokenIn(opened.body), token: undoToken });
    expect(reused.statusCode).toBe(410);
    expect((await owner.get(undo)).statusCode).toBe(410);

    // The link expires.
    await laptop.signIn(h, "old@example.org");
    await laptop.submit("/account", "/account/email", { email: "fourth@example.org" });
    const fourth = signInMailParts(await h.mailTo("fourth@example.org"));
    const fourthPage = await laptop.get(fourth.path);
    await laptop.post("/account/email/confirm", { _csrf: tokenIn(fourthPage.body), token: fourth.token });
    const told2 = await h.mailTo("old@example.org");
    const undo2 = /\/account\/email\/undo\/[A-Za-z0-9_-]{43}/.exec(told2.parsed.text ?? "")![0];
    h.advance(8 * 24 * 60 * 60_000);
    expect((await owner.get(undo2)).statusCode).toBe(410);
    expect(await account("fourth@example.org")).toBeDefined();
    // The hourly retention job then deletes it, and the old address with it.
    const db = h.t.db.database.db;
    await retentionJob(db).run({ now: h.app.civic.now(), signal: new AbortController().signal });
    expect(
      await db
        .selectFrom("email_links")
        .select("id")
        .where("purpose", "=", "email-change-undo")
        .where("email", "=", "old@example.org")
        .execute(),
    ).toEqual([]);
  });
});
