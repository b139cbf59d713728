import { afterAll, beforeAll, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, hiddenIn, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";

/**
 * Issue 33 #2: a sign-in link, once used, never signs in again. The lock-out relief (over the mailbox's cap, the
 * newest link already sent keeps working) must not bring back a link that was used, even one whose code a stranger
 * ended with five wrong guesses.
 */
describeEachDb("a used sign-in link stays used, whatever the lock-out relief does", (dialect) => {
  let h: AccountsHarness;
  const OWNER = "wren@example.org";
  let client = 0;

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    // Start just after the hour, so the whole test is inside one hourly window.
    h.advance(3_600_000 - (Date.now() % 3_600_000) + 60_000);
  });
  afterAll(async () => h?.close());

  /** A fresh cookie-less client (its own address) asks for a sign-in message for the owner. */
  async function askSignIn() {
    const ip = `203.0.113.${++client}`;
    const form = await h.app.inject({ url: "/sign-in", remoteAddress: ip });
    const page = await h.app.inject({
      method: "POST",
      url: "/sign-in/email",
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: tokenIn(form.body), email: OWNER }).toString(),
    });
    expect(page.statusCode).toBe(200);
    return { ip, page };
  }

  async function queuedForOwner(): Promise<{ id: number; text_body: string }[]> {
    return h.app.civic.database.db
      .selectFrom("outbox")
      .select(["id", "text_body"])
      .where("to_address", "=", OWNER)
      .where("kind", "=", "account-sign-in")
      .orderBy("id", "desc")
      .execute();
  }

  /** Opens a sign-in link from `ip` and presses the button: true when that signed in. */
  async function signsIn(ip: string, token: string): Promise<boolean> {
    const page = await h.app.inject({ url: `/sign-in/link/${token}`, remoteAddress: ip });
    if (page.statusCode !== 200) return false;
    const done = await h.app.inject({
      method: "POST",
      url: "/sign-in/link",
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: tokenIn(page.body), token }).toString(),
    });
    return done.statusCode === 303 && String(done.headers["set-cookie"] ?? "").includes("=");
  }

  it("a link used to sign in does not sign in again after later requests past the mailbox's cap", async () => {
    // Requests from many clients until the owner's mailbox has had all the sign-in messages it may get this hour;
    // the last one that was sent is the stranger's, whose page they keep.
    let strangers: Awaited<ReturnType<typeof askSignIn>> | null = null;
    for (let i = 0; i < 50; i++) {
      const before = (await queuedForOwner()).length;
      const asked = await askSignIn();
      if ((await queuedForOwner()).length === before) break;
      strangers = asked;
    }
    expect(strangers).not.toBeNull();
    const mailed = await queuedForOwner();
    const token = /\/sign-in\/link\/([A-Za-z0-9_-]{43})/.exec(mailed[0]!.text_body)?.[1];
    expect(token).toBeDefined();

    // The stranger types five wrong codes on their page: that ends the code (and, for now, its link).
    for (let guess = 0; guess < 5; guess++) {
      await h.app.inject({
        method: "POST",
        url: "/sign-in/code",
        remoteAddress: strangers!.ip,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({
          _csrf: tokenIn(strangers!.page.body),
          handle: hiddenIn(strangers!.page.body, "handle"),
          code: String(100000 + guess),
        }).toString(),
      });
    }

    // Someone asks again, past the cap: the owner's newest link is kept alive, and the owner signs in with it.
    await askSignIn();
    expect(await signsIn("198.51.100.7", token!)).toBe(true);

    // More requests past the cap, then whoever holds the link (a forwarded mail, browser history) tries it.
    await askSignIn();
    await askSignIn();
    expect(await signsIn("192.0.2.66", token!)).toBe(false);
    expect(await signsIn("198.51.100.7", token!)).toBe(false);
  }, 120_000);
});
