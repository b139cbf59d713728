import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accountsHarness, signInMailParts } from "../accounts/support.js";
import { browserAvailable, watchPageProblems, browserSite } from "../helpers/browser.js";

/**
 * Accounts in real Chromium: email sign-in without JavaScript and by keyboard, axe on every accounts page, and
 * passkeys with a virtual authenticator. The site runs on http://localhost (a secure context whose host is a valid
 * WebAuthn relying-party id, unlike 127.0.0.1).
 */
describe.skipIf(!browserAvailable())("accounts in Chromium", { timeout: 120_000 }, () => {
  const site = browserSite((base) => accountsHarness("sqlite", { BASE_URL: base }));

  async function signInByEmail(page: Page, email: string) {
    await page.goto(`${site.base}/sign-in`);
    await page.fill("#email", email);
    await page.press("#email", "Enter");
    await page.waitForSelector("h1:has-text('Check your email')");
    const { path } = signInMailParts(await site.harness.mailTo(email));
    await page.goto(`${site.base}${path}`);
    await page.click("button:has-text('Sign in')");
    await page.waitForURL(`${site.base}/account`);
  }

  it("signs in by email without JavaScript, and every accounts page passes axe", async () => {
    const noJs = await site.browser.newContext({ javaScriptEnabled: false });
    const page = await noJs.newPage();
    await signInByEmail(page, "wren@example.org");
    expect(await page.textContent("h1")).toBe("Your account");
    // Issue 34: one look for every form control. The password box is as wide and tall as the email box, and the
    // username box that password managers read (hidden) is not shown.
    const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    const email = await box("#new-email");
    const password = await box('input[type="password"]');
    expect(password.width).toBe(email.width);
    expect(password.height).toBe(email.height);
    expect(await page.locator('input[name="username"]').isVisible()).toBe(false);
    await page.goto(`${site.base}/sign-in`);
    expect((await box("#password")).width).toBe((await box("#password-email")).width);
    await noJs.close();

    const { context, page: p, problems, failures, check } = await site.checkedPage();
    await p.goto(`${site.base}/sign-in`);
    await check("/sign-in");
    await p.fill("#password-email", "nobody@example.org");
    await p.click("button:has-text('Sign in with password')");
    await check("/sign-in (password error)");
    await p.goto(`${site.base}/my-data`);
    await check("/my-data");
    await p.fill("#email", "wren@example.org");
    await p.click("button:has-text('Send me a link')");
    await check("/my-data (sent)");
    const { path } = signInMailParts(await site.harness.mailTo("wren@example.org"));
    await p.goto(`${site.base}${path}`);
    await check("/my-data/open");
    await signInByEmail(p, "wren@example.org");
    for (const path of [
      "/account",
      "/account/reports",
      "/account/data",
      "/account/delete",
      "/report?category=pothole",
    ]) {
      await p.goto(`${site.base}${path}`);
      await check(path);
    }
    await p.goto(`${site.base}/account`);
    await p.fill("#new-password", "short");
    await p.click("button:has-text('Set password')");
    await check("/account (password error)");
    expect(failures.join("\n\n")).toBe("");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("registers a passkey and signs in with it alone", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await signInByEmail(page, "yew@example.org");
    await page.click("#passkey-register-button");
    await page.waitForURL(`${site.base}/account?done=passkey-added`);
    expect(await page.textContent("main")).toContain("Your passkey is added");
    const stored = await site.harness.t.db.database.db.selectFrom("passkeys").selectAll().execute();
    expect(stored).toHaveLength(1);

    await page.click("button:has-text('Sign out')");
    await page.waitForURL(`${site.base}/`);
    expect(await page.textContent(".account-link")).toContain("Sign in");

    await page.goto(`${site.base}/sign-in`);
    // Reached and pressed by keyboard, like every control.
    await page.focus("#passkey-sign-in-button");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${site.base}/account`);
    // Signed in: the header links to the account, without saying whose it is (issue 33 #6).
    expect((await page.textContent(".account-link"))?.trim()).toBe("Your account");
    expect(await page.textContent("header")).not.toContain("yew@example.org");
    const used = await site.harness.t.db.database.db
      .selectFrom("passkeys")
      .select("last_used_at")
      .executeTakeFirstOrThrow();
    expect(used.last_used_at).not.toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });
});
