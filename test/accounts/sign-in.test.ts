import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDb } from "../helpers/app.js";
import { type AccountsHarness, accountsHarness, hiddenIn, signInMailParts, tokenIn, Visitor } from "./support.js";

/** The page with its per-request random values (form tokens, handles) blanked, to compare two answers. */
const normalise = (body: string) => body.replace(/(value|data-csrf)="[A-Za-z0-9_.-]{20,}"/g, '$1="…"');

describeEachDb("email sign-in", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  it("signs in with the emailed link only when the button is pressed, once", async () => {
    const v = new Visitor(h.app);
    const asked = await v.submit("/sign-in", "/sign-in/email", { email: "Ann@Example.org " });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain("Check your email");
    const mail = await h.mailTo("ann@example.org");
    expect(mail.parsed.subject).not.toContain("ann");
    const { path, token } = signInMailParts(mail);

    // A mail scanner follows the link: it gets a page with a button, no session, no cookie, nothing used up.
    const scanned = await h.app.inject({ method: "GET", url: path });
    expect(scanned.statusCode).toBe(200);
    expect(scanned.headers["set-cookie"]).toBeUndefined();
    expect(scanned.body).toContain('action="/sign-in/link"');
    const scannedAgain = await h.app.inject({ method: "GET", url: path });
    expect(scannedAgain.statusCode).toBe(200);

    const page = await v.get(path);
    const done = await v.post("/sign-in/link", { _csrf: tokenIn(page.body), token });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/account");
    const cookie = String(done.headers["set-cookie"]);
    expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);

    const account = await v.get("/account");
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain("ann@example.org");
    // The header names the account on every page.
    expect((await v.get("/about")).body).toContain('href="/account"');
    expect((await h.app.inject("/about")).body).toContain('href="/sign-in"');

    // Used once: the same link no longer signs in, and its page says so.
    const other = new Visitor(h.app);
    const reused = await other.post("/sign-in/link", { _csrf: tokenIn((await other.get("/sign-in")).body), token });
    expect(reused.statusCode).toBe(410);
    expect(reused.body).toContain("expired or has already been used");
    expect(other.cookie).toBeNull();
    expect((await other.get(path)).statusCode).toBe(410);

    // The database keeps only a hash of the session token.
    const sessionToken = v.cookie!.split("=")[1]!;
    const rows = await h.t.db.database.db.selectFrom("sessions").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(sessionToken);
  });

  it("signs in with the code typed on the page that sent it; five wrong codes end it", async () => {
    const v = new Visitor(h.app);
    const asked = await v.submit("/sign-in", "/sign-in/email", { email: "bob@example.org" });
    const handle = hiddenIn(asked.body, "handle");
    const { code } = signInMailParts(await h.mailTo("bob@example.org"));
    const wrong = code === "000000" ? "111111" : "000000";
    const first = await v.post("/sign-in/code", { _csrf: tokenIn(asked.body), handle, code: wrong });
    expect(first.statusCode).toBe(400);
    expect(first.body).toContain("That code is not right");
    const right = await v.post("/sign-in/code", {
      _csrf: tokenIn(first.body),
      handle,
      code: ` ${code.slice(0, 3)} ${code.slice(3)} `,
    });
    expect(right.statusCode).toBe(303);
    expect(v.cookie).not.toBeNull();

    const w = new Visitor(h.app);
    const again = await w.submit("/sign-in", "/sign-in/email", { email: "bob@example.org" });
    const handle2 = hiddenIn(again.body, "handle");
    const code2 = signInMailParts(await h.mailTo("bob@example.org")).code;
    let last = again;
    for (let i = 0; i < 5; i++) {
      last = await w.post("/sign-in/code", {
        _csrf: tokenIn(last.body),
        handle: handle2,
        code: code2 === "123456" ? "654321" : "123456",
      });
      expect(last.statusCode).toBe(400);
    }
    expect(last.body).toContain("no longer works");
    const late = await w.post("/sign-in/code", { _csrf: tokenIn(last.body), handle: handle2, code: code2 });
    expect(late.statusCode).toBe(400);
    expect(w.cookie).toBeNull();
  });

  it("comes back to the page that asked for sign-in, and only to a local page", async () => {
    const anonymous = await h.app.inject("/account/reports");
    expect(anonymous.headers.location).toBe("/sign-in?next=%2Faccount%2Freports");
    const v = new Visitor(h.app);
    await v.submit("/sign-in?next=%2Faccount%2Freports", "/sign-in/email", {
      email: "jay@example.org",
      next: "/account/reports",
    });
    const text = (await h.mailTo("jay@example.org")).parsed.text ?? "";
    const link = /http:\/\/civic\.test(\/sign-in\/link\/\S+)/.exec(text)![1]!;
    expect(link).toContain("?next=%2Faccount%2Freports");
    const page = await v.get(link);
    const done = await v.post("/sign-in/link", {
      _csrf: tokenIn(page.body),
      token: hiddenIn(page.body, "token"),
      next: hiddenIn(page.body, "next"),
    });
    expect(done.headers.location).toBe("/account/reports");
    const w = new Visitor(h.app);
    const elsewhere = await w.submit("/sign-in", "/sign-in/email", {
      email: "jay@example.org",
      next: "//evil.example/",
    });
    expect(elsewhere.body).not.toContain("evil.example");
    expect((await h.mailTo("jay@example.org")).parsed.text).not.toContain("evil.example");
  });

  it("lets links and codes expire after 30 minutes", async () => {
    const v = new Visitor(h.app);
    const asked = await v.submit("/sign-in", "/sign-in/email", { email: "cat@example.org" });
    const { token, code } = signInMailParts(await h.mailTo("cat@example.org"));
    h.advance(31 * 60_000);
    const byCode = await v.post("/sign-in/code", {
      _csrf: tokenIn(asked.body),
      handle: hiddenIn(asked.body, "handle"),
      code,
    });
    expect(byCode.statusCode).toBe(400);
    const byLink = await v.post("/sign-in/link", { _csrf: tokenIn(byCode.body), token });
    expect(byLink.statusCode).toBe(410);
    expect(v.cookie).toBeNull();
  });

  it("answers the same for addresses with and without an account", async () => {
    const known = new Visitor(h.app);
    await known.signIn(h, "known@example.org");
    const a = await new Visitor(h.app).submit("/sign-in", "/sign-in/email", { email: "known@example.org" });
    const b = await new Visitor(h.app).submit("/sign-in", "/sign-in/email", { email: "nobody@example.org" });
    expect(a.statusCode).toBe(b.statusCode);
    expect(normalise(a.body)).toBe(normalise(b.body));
    const pa = await new Visitor(h.app).submit("/sign-in", "/sign-in/password", {
      email: "known@example.org",
      password: "wrong password here",
    });
    const pb = await new Visitor(h.app).submit("/sign-in", "/sign-in/password", {
      email: "nobody@example.org",
      password: "wrong password here",
    });
    expect(pa.statusCode).toBe(401);
    expect(pa.statusCode).toBe(pb.statusCode);
    expect(normalise(pa.body).replace("known@", "X@")).toBe(normalise(pb.body).replace("nobody@", "X@"));
  });

  it("keeps what was typed and explains bad input on the form", async () => {
    const v = new Visitor(h.app);
    const bad = await v.submit("/sign-in", "/sign-in/email", { email: "not an address" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Enter an email address like name@example.com");
    expect(bad.body).toContain('value="not an address');
    // A control character is refused for every form by the central input check (core/http/input.ts), with a message.
    const nul = await v.submit("/sign-in", "/sign-in/email", { email: "not an address\u0000" });
    expect(nul.statusCode).toBe(400);
    expect(nul.body).toContain("must not contain control characters");
    const huge = await v.submit("/sign-in", "/sign-in/email", { email: "x".repeat(100_000) });
    expect(huge.statusCode).toBe(400);
    const badToken = await v.submit("/sign-in", "/sign-in/link", { token: "../../etc" });
    expect(badToken.statusCode).toBe(410);
    const badHandle = await v.submit("/sign-in", "/sign-in/code", { handle: "x", code: "12" });
    expect(badHandle.statusCode).toBe(400);
    expect((await h.app.inject(`/sign-in/link/${"a".repeat(300)}`)).statusCode).toBeLessThan(500);
  });

  it("signs out here, and everywhere", async () => {
    const phone = new Visitor(
      h.app,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1",
    );
    const laptop = new Visitor(h.app);
    await phone.signIn(h, "dee@example.org");
    await laptop.signIn(h, "dee@example.org");
    const page = await laptop.get("/account");
    expect(page.body).toContain("Phone · Safari");
    expect(page.body).toContain("Computer · Chrome");

    const phoneCookie = phone.cookie;
    const out = await phone.submit("/account", "/sign-out", {});
    expect(out.statusCode).toBe(303);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    // The old cookie no longer works, even if someone kept it.
    const stale = await h.app.inject({ url: "/account", headers: { cookie: phoneCookie! } });
    expect(stale.statusCode).toBe(303);
    expect((await laptop.get("/account")).statusCode).toBe(200);

    await phone.signIn(h, "dee@example.org");
    const everywhere = await laptop.submit("/account", "/account/sessions/end-all", {});
    expect(everywhere.statusCode).toBe(303);
    expect((await laptop.get("/account")).statusCode).toBe(303);
    expect((await phone.get("/account")).statusCode).toBe(303);
  });

  it("refuses a signed-in person's form without a token bound to their session", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "eve@example.org");
    const anonymousToken = tokenIn((await h.app.inject("/sign-in")).body);
    const forged = await v.post("/account/name", { _csrf: anonymousToken, name: "Mallory" });
    expect(forged.statusCode).toBe(403);
    const other = new Visitor(h.app);
    await other.signIn(h, "fay@example.org");
    const othersToken = tokenIn((await other.get("/account")).body);
    expect((await v.post("/account/name", { _csrf: othersToken, name: "Mallory" })).statusCode).toBe(403);
    const ok = await v.submit("/account", "/account/name", { name: "Eve Adams" });
    expect(ok.statusCode).toBe(303);
    // The account page shows the new name (the header of other pages never says whose account: issue 33 #6).
    expect((await v.get("/account")).body).toContain("Eve Adams");
    expect((await v.get("/about")).body).not.toContain("Eve Adams");
  });

  it("slides the session's expiry forward with use, and ends it after 30 idle days", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "gil@example.org");
    h.advance(20 * 24 * 3600_000);
    const used = await v.get("/account");
    expect(used.statusCode).toBe(200);
    expect(String(used.headers["set-cookie"])).toContain("Max-Age=2592000");
    h.advance(20 * 24 * 3600_000);
    expect((await v.get("/account")).statusCode).toBe(200);
    h.advance(31 * 24 * 3600_000);
    const expired = await v.get("/account");
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toBe("/sign-in?next=%2Faccount");
  });

  it("does not let suspended accounts sign in, and says why and how to appeal", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "hal@example.org");
    await h.t.db.database.db
      .updateTable("accounts")
      .set({ suspended_at: new Date().toISOString(), suspended_reason: "Repeated abusive reports" })
      .where("email", "=", "hal@example.org")
      .execute();
    expect((await v.get("/account")).statusCode).toBe(303);
    const w = new Visitor(h.app);
    await w.submit("/sign-in", "/sign-in/email", { email: "hal@example.org" });
    const { path, token } = signInMailParts(await h.mailTo("hal@example.org"));
    const res = await w.post("/sign-in/link", { _csrf: tokenIn((await w.get(path)).body), token });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain("suspended");
    expect(res.body).toContain("Repeated abusive reports");
    expect(res.body).toContain("appeal");
    expect(w.cookie).toBeNull();
  });
});

describeEachDb("session cookie over https", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect, { BASE_URL: "https://civic.test" });
  });
  afterAll(async () => h?.close());

  it("is Secure and __Host- prefixed", async () => {
    const v = new Visitor(h.app);
    await v.submit("/sign-in", "/sign-in/email", { email: "ivy@example.org" });
    const { token, path } = signInMailParts(await h.mailTo("ivy@example.org"));
    const done = await v.post("/sign-in/link", { _csrf: tokenIn((await v.get(path)).body), token });
    expect(String(done.headers["set-cookie"])).toMatch(
      /^__Host-session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000; Secure$/,
    );
  });
});
