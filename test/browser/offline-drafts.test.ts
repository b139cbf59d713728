import { type BrowserContext, chromium, type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import {
  axeViolations,
  browserAvailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  formatViolations,
  keepOnLoopback,
  watchPageProblems,
  browserSite,
  addSessionCookie,
} from "../helpers/browser.js";
import { jpegWithGps } from "../helpers/images.js";
import { startTestSmtp, type TestSmtp } from "../helpers/smtp.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The installable app in Chromium: install criteria, the report flow offline from the service worker's cache, a
 * draft saved on the device (with its photo) that survives a reload and sends itself when the connection returns,
 * exactly once even when the connection drops after the server stored it; axe on the drafts and offline pages.
 */
describe.skipIf(!browserAvailable())("the installable app and offline drafts in Chromium", { timeout: 120_000 }, () => {
  let smtp: TestSmtp;
  const site = browserSite(
    async () => {
      smtp = await startTestSmtp();
      // The outbox worker's round every second (5 s unless set), so the mail is waited for less.
      const t = await createTestApp("sqlite", { seed: true, env: { SMTP_URL: smtp.url, MAIL_POLL_SECONDS: "1" } });
      return {
        ...t,
        async close() {
          await t.close();
          await smtp.close();
        },
      };
    },
    { host: "127.0.0.1" },
  );
  beforeAll(() => {
    for (const worker of site.app.civic.workers) worker.start();
  });

  const reportsTitled = (title: string) =>
    site.harness.db.database.db.selectFrom("reports").select(["id", "reference"]).where("title", "=", title).execute();

  async function expectAxeClean(page: Page, step: string) {
    const violations = await axeViolations(page);
    expect(formatViolations(`${step} (${page.url()})`, violations)).toBe("");
  }

  /**
   * A context whose network can be cut. `setOffline` does not reach the service worker's own fetches, so while
   * offline every request is also aborted by routing, which does.
   */
  async function appContext(
    cookie?: string,
  ): Promise<{ context: BrowserContext; page: Page; setOnline(on: boolean): Promise<void> }> {
    const context = await site.browser.newContext();
    if (cookie) await addSessionCookie(context, site.base, cookie);
    let online = true;
    await context.route("**/*", (route) => (online ? route.fallback() : route.abort("internetdisconnected")));
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=pothole`);
    // Installed and in control, with the report flow in its cache.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    return {
      context,
      page,
      async setOnline(on) {
        online = on;
        await context.setOffline(!on);
      },
    };
  }

  async function fillReport(page: Page, title: string, photo?: Buffer) {
    await page.getByLabel("In the road").check();
    await page.selectOption("#place", "church-lane");
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Description").fill("About 35 cm across. Cars swerve round it.");
    if (photo) await page.setInputFiles("#photos", [{ name: "pothole.jpg", mimeType: "image/jpeg", buffer: photo }]);
    await page.getByRole("textbox", { name: /Email address/ }).fill("offline.reporter@example.org");
  }

  it("meets Chromium's install criteria: manifest with icons, service worker for the whole site", async () => {
    // A normal profile: Chromium never offers to install from an incognito context, which newContext() gives.
    const context = await chromium.launchPersistentContext("", {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      locale: "en-GB",
    });
    await keepOnLoopback(context);
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = watchPageProblems(page);
    await page.goto(`${site.base}/`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    const cdp = await context.newCDPSession(page);
    const manifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: unknown[] };
    expect(manifest.url).toBe(`${site.base}/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    expect(installabilityErrors).toEqual([]);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${site.base}/`);
    const sw = await page.request.get(`${site.base}/sw.js`);
    expect(sw.headers()["cache-control"]).toBe("no-cache");
    expect(sw.headers()["service-worker-allowed"]).toBe("/");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("offline: the report is saved on the device with its photo, survives a reload, and sends itself once back online", async () => {
    const { context, page, setOnline } = await appContext();
    const problems = watchPageProblems(page);
    const title = "Offline pothole by the church";
    await setOnline(false);

    // The report flow opens from the device: category step, then the form.
    await page.goto(`${site.base}/report`);
    await page.getByLabel("Pothole").check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(/\/report\?category=pothole/);
    await fillReport(page, title, await jpegWithGps(900, 600));
    await page.getByRole("button", { name: "Send report" }).click();

    await page.waitForURL(/\/report\/drafts\?saved=/);
    const notice = page.locator("#draft-notice");
    await expect.poll(() => notice.textContent()).toContain("Saved on this device");
    const said = (await notice.textContent()) ?? "";
    expect(said).toContain("will be sent automatically");
    expect(said).not.toMatch(/has been sent|was sent|has arrived|reference/i);
    expect(await page.locator("li.draft").textContent()).toContain(title);
    expect(await page.locator("li.draft").textContent()).toContain("1 photo");
    await expectAxeClean(page, "drafts page, offline");
    expect(await reportsTitled(title)).toHaveLength(0);

    await page.reload();
    await expect.poll(() => page.locator("li.draft").count()).toBe(1);
    expect(await page.locator("li.draft").textContent()).toContain(title);

    // A page that is not on the device: the offline page.
    const other = await context.newPage();
    await other.goto(`${site.base}/councillors`);
    expect(await other.textContent("h1")).toBe("You are offline");
    await expectAxeClean(other, "offline page");
    await other.close();

    // Back online, nobody touches anything: the draft is sent, exactly once, and its reference shown.
    await setOnline(true);
    const reference = page.locator("#draft-notice .reference");
    await reference.waitFor({ timeout: 30_000 });
    const shown = ((await reference.textContent()) ?? "").trim();
    const stored = await reportsTitled(title);
    expect(stored.map((r) => r.reference)).toEqual([shown]);
    const photos = await site.harness.db.database.db
      .selectFrom("report_photos")
      .select("hash")
      .where("report_id", "=", stored[0]?.id ?? -1)
      .execute();
    expect(photos).toHaveLength(1);
    await expect.poll(() => page.locator("li.draft").count()).toBe(0);
    expect(await page.locator(".drafts-arrived").textContent()).toContain(shown);
    await expectAxeClean(page, "drafts page, after sending");

    await smtp.waitFor(1, 20_000);
    await expect
      .poll(() => smtp.received.find((m) => m.to.includes("offline.reporter@example.org"))?.parsed.subject, {
        timeout: 20_000,
      })
      .toContain(shown);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("a connection that drops after the server stored the report: the retry gets the same reference, one report", async () => {
    const { context, page, setOnline } = await appContext();
    const title = "Pothole sent over a bad connection";
    await setOnline(false);
    await page.goto(`${site.base}/report?category=pothole`);
    await fillReport(page, title);
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/drafts\?saved=/);
    await page.locator("li.draft").waitFor();
    // A second draft, deleted again: it is never sent.
    await page.goto(`${site.base}/report?category=pothole`);
    await fillReport(page, "A draft to delete");
    await page.getByRole("button", { name: "Send report" }).click();
    await expect.poll(() => page.locator("li.draft").count()).toBe(2);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete “A draft to delete”" }).click();
    await expect.poll(() => page.locator("li.draft").count()).toBe(1);

    // The first send reaches the server, which stores the report, but its answer never arrives.
    let attempts = 0;
    await context.route("**/api/app/reports", async (route) => {
      attempts++;
      if (attempts > 1) return route.fallback();
      await route.fetch();
      await route.abort("connectionreset");
    });
    // Meanwhile the person has gone on to another page, from the device's copy.
    await page.goto(`${site.base}/`);
    await expect
      .poll(() => page.locator("#saved-drafts-note").textContent())
      .toContain("1 report saved on this device");
    await setOnline(true);
    const reference = page.locator("main .success-panel a");
    await reference.waitFor({ timeout: 30_000 });
    expect(await page.locator("main .success-panel").textContent()).toContain(`“${title}” has arrived`);
    await expect.poll(() => page.locator("#saved-drafts-note").count()).toBe(0);
    await expectAxeClean(page, "home page after a saved report arrived");
    expect(attempts).toBeGreaterThanOrEqual(2);
    const stored = await reportsTitled(title);
    expect(stored).toHaveLength(1);
    expect(((await reference.textContent()) ?? "").trim()).toBe(stored[0]?.reference);
    expect(await reportsTitled("A draft to delete")).toHaveLength(0);
    await context.close();
  }, 60_000);

  it("a draft refused meanwhile (category retired) stays with the reason; opened, corrected and sent, it arrives", async () => {
    const { context, page, setOnline } = await appContext();
    const title = "Bus shelter glass smashed";
    await setOnline(false);
    await page.goto(`${site.base}/report?category=bus_shelter`);
    await page.selectOption("#place", "church-lane");
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Description").fill("Glass all over the pavement by the shelter.");
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/drafts\?saved=/);
    await page.locator("li.draft").waitFor();

    await site.harness.db.database.db
      .updateTable("categories")
      .set({ is_public: 0 })
      .where("code", "=", "bus_shelter")
      .execute();
    try {
      await setOnline(true);
      const refused = page.locator("li.draft .draft-refused");
      await refused.waitFor({ timeout: 30_000 });
      expect(await refused.textContent()).toContain("category: is not a category we know");
      expect(await page.locator("#draft-notice").textContent()).toContain("not accepted");
      await expectAxeClean(page, "drafts page with a refused draft");
      expect(await reportsTitled(title)).toHaveLength(0);

      // Open it: the category is chosen again, then the form comes back filled in from the draft.
      await page.getByRole("link", { name: `Open and edit “${title}”` }).click();
      await page.getByLabel("Pothole").check();
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(/\/report\?category=pothole&draft=/);
      await expect.poll(() => page.inputValue("#title")).toBe(title);
      expect(await page.inputValue("#place")).toBe("church-lane");
      await page.getByLabel("In the road").check();
      await page.getByRole("button", { name: "Send report" }).click();
      await page.waitForURL(/\/report\/drafts\?saved=/);
      const reference = page.locator("#draft-notice .reference");
      await reference.waitFor({ timeout: 30_000 });
      const stored = await reportsTitled(title);
      expect(stored.map((r) => r.reference)).toEqual([((await reference.textContent()) ?? "").trim()]);
      await expect.poll(() => page.locator("li.draft").count()).toBe(0);
    } finally {
      await site.harness.db.database.db
        .updateTable("categories")
        .set({ is_public: 1 })
        .where("code", "=", "bus_shelter")
        .execute();
      await context.close();
    }
  }, 60_000);

  /** The titles of the drafts in this origin's IndexedDB, read directly (none when the database is gone). */
  const storedDraftTitles = (page: Page) =>
    page.evaluate(async () => {
      if (!(await indexedDB.databases()).some((d) => d.name === "civic-drafts")) return [];
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open("civic-drafts");
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error ?? new Error("open failed"));
      });
      try {
        if (!db.objectStoreNames.contains("drafts")) return [];
        const all = await new Promise<{ fields: [string, string][] }[]>((resolve, reject) => {
          const get = db.transaction("drafts").objectStore("drafts").getAll();
          get.onsuccess = () => resolve(get.result as { fields: [string, string][] }[]);
          get.onerror = () => reject(get.error ?? new Error("getAll failed"));
        });
        return all.map((d) => d.fields.find(([name]) => name === "title")?.[1] ?? "");
      } finally {
        db.close();
      }
    });

  const reportOwners = (title: string) =>
    site.harness.db.database.db.selectFrom("reports").select("account_id").where("title", "=", title).execute();

  /** Signed in, offline: a report saved as a draft on the device. */
  async function saveDraftOffline(page: Page, setOnline: (on: boolean) => Promise<void>, title: string) {
    await setOnline(false);
    await page.goto(`${site.base}/report?category=pothole`);
    await fillReport(page, title);
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/drafts\?saved=/);
    await expect.poll(() => page.locator("li.draft").textContent()).toContain(title);
  }

  it("a draft belongs to the account that saved it: after sign-out it is gone, and the next person never sends it", async () => {
    const a = await signInAs(site.app, "drafts.resident.a@example.org", "resident");
    const b = await signInAs(site.app, "drafts.resident.b@example.org", "resident");
    const { context, page, setOnline } = await appContext(a.cookie);
    const title = "Resident A's unsent pothole";
    await saveDraftOffline(page, setOnline, title);
    expect(await storedDraftTitles(page)).toEqual([title]);

    // Back online, but the drafts cannot reach the server yet: A signs out with the draft still unsent.
    await context.route("**/api/app/reports", (route) => route.abort("connectionreset"));
    await setOnline(true);
    const asked: string[] = [];
    let accept = false;
    page.on("dialog", (dialog) => {
      asked.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    await page.goto(`${site.base}/account`);
    // Asked, and answered "no": still signed in, the draft still here.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(page.url()).toBe(`${site.base}/account`);
    expect(await storedDraftTitles(page)).toEqual([title]);
    accept = true;
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(`${site.base}/`);
    // Asked first, as unsent work is lost; then the draft is gone from the device.
    expect(asked.join("\n")).toContain("1 report saved on this device has not been sent");
    await expect.poll(() => storedDraftTitles(page)).toEqual([]);

    // B signs in on the same browser, with the connection back: nothing of A's is shown or sent.
    await context.unroute("**/api/app/reports");
    await addSessionCookie(context, site.base, b.cookie);
    await page.goto(`${site.base}/report/drafts`);
    await expect.poll(() => page.locator(".drafts-empty").count()).toBe(1);
    expect(await page.textContent("main")).not.toContain(title);
    expect(await reportOwners(title)).toEqual([]);
    await context.close();
  }, 90_000);

  it("a session that ended without signing out: the next account on the browser neither sees nor sends the draft", async () => {
    const a = await signInAs(site.app, "drafts.resident.c@example.org", "resident");
    const b = await signInAs(site.app, "drafts.resident.d@example.org", "resident");
    const { context, page, setOnline } = await appContext(a.cookie);
    const title = "Resident C's pothole, saved before the session ended";
    await saveDraftOffline(page, setOnline, title);

    // A's session ends elsewhere (expiry, "sign out everywhere" on another device); B signs in here.
    await context.clearCookies();
    await addSessionCookie(context, site.base, b.cookie);
    const sent: string[] = [];
    context.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith("/api/app/reports")) sent.push(request.url());
    });
    await setOnline(true);
    await page.goto(`${site.base}/`);
    expect(await page.locator("#saved-drafts-note").count()).toBe(0);
    await page.goto(`${site.base}/report/drafts`);
    // The page itself says "no reports saved" before its script has read the device, so wait for what the script
    // writes: the note about the other session's draft.
    await expect
      .poll(() => page.textContent("#drafts-hidden"))
      .toContain("1 report saved on this device in another session");
    expect(await page.locator(".drafts-empty").count()).toBe(1);
    expect(await page.textContent("main")).not.toContain(title);
    await expectAxeClean(page, "drafts page with a draft of another session");

    // A signs in again on this browser: the draft is theirs, and is sent under their account only.
    await context.clearCookies();
    await addSessionCookie(context, site.base, a.cookie);
    await page.goto(`${site.base}/report/drafts`);
    await page.locator("#draft-notice .reference, .drafts-arrived").first().waitFor({ timeout: 30_000 });
    await expect.poll(() => reportOwners(title)).toEqual([{ account_id: a.accountId }]);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    await context.close();
  }, 90_000);

  it("erasing one's data also clears the device: Clear-Site-Data names storage, and no draft is left", async () => {
    const a = await signInAs(site.app, "drafts.resident.e@example.org", "resident");
    const { context, page, setOnline } = await appContext(a.cookie);
    const title = "Resident E's pothole, then everything erased";
    await saveDraftOffline(page, setOnline, title);
    await context.route("**/api/app/reports", (route) => route.abort("connectionreset"));
    await setOnline(true);
    const asked: string[] = [];
    page.on("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.goto(`${site.base}/account/delete`);
    await page.getByLabel("I understand that this erases my data for good").check();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/account/delete")),
      page.getByRole("button", { name: "Delete my account and erase my data" }).click(),
    ]);
    expect(answer.status()).toBe(200);
    expect((await answer.allHeaders())["clear-site-data"]).toMatch(/"storage"/);
    await page.getByRole("heading", { name: "Your data is erased" }).waitFor();
    expect(asked.join("\n")).toContain("1 report saved on this device has not been sent");
    await expect.poll(() => storedDraftTitles(page)).toEqual([]);
    expect(await reportOwners(title)).toEqual([]);
    await context.close();
  }, 90_000);
});
