import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { issueChallenge } from "../../src/accounts/challenges.js";
import { createTestApp } from "../helpers/app.js";
import { addSessionCookie, browserAvailable, browserSite } from "../helpers/browser.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 27 #2, invariant "Offline cache", in Chromium with the real service worker: an admin opens their account,
 * a staff page with volunteers' contact details and a personal-data page opened by an emailed link, then signs out.
 * The worker's CacheStorage holds none of those pages, and offline navigation to them shows the offline page, not
 * what the admin saw.
 */
describe.skipIf(!browserAvailable())(
  "nothing private stays in the service worker's cache",
  { timeout: 120_000 },
  () => {
    const site = browserSite(() => createTestApp("sqlite", { seed: true }), { host: "127.0.0.1" });

    /** Every URL path (with its query) held in any of this origin's caches. */
    const cachedPaths = (page: Page) =>
      page.evaluate(async () => {
        const paths: string[] = [];
        for (const name of await caches.keys()) {
          for (const request of await (await caches.open(name)).keys()) {
            const url = new URL(request.url);
            paths.push(url.pathname + url.search);
          }
        }
        return paths;
      });

    async function offlineContext(): Promise<{ context: BrowserContext; setOnline(on: boolean): Promise<void> }> {
      const context = await site.browser.newContext();
      let online = true;
      // setOffline does not reach the worker's own fetches; aborting every request by routing does.
      await context.route("**/*", (route) => (online ? route.fallback() : route.abort("internetdisconnected")));
      return {
        context,
        async setOnline(on) {
          online = on;
          await context.setOffline(!on);
        },
      };
    }

    it("after sign-out the worker holds no page served to the signed-in admin, and offline shows the offline page", async () => {
      const admin = await signInAs(site.app, "admin.offline@example.org", "admin");
      const { token } = await issueChallenge(
        site.app.civic.database.db,
        site.app.civic.config.sessionSecret,
        { purpose: "my-data", email: "admin.offline@example.org", accountId: admin.accountId },
        site.app.civic.now(),
      );
      const privatePages = ["/account", "/admin/volunteers", `/my-data/open/${token}`];

      const { context, setOnline } = await offlineContext();
      await addSessionCookie(context, site.base, admin.cookie);
      const page = await context.newPage();
      await page.goto(`${site.base}/`);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
      // Installed while signed in: what it keeps for offline use is the anonymous page. (The header says only
      // "Your account", never whose: issue 33 #6.)
      expect(await page.textContent(".account-link")).toContain("Your account");

      for (const path of privatePages) {
        const response = await page.goto(`${site.base}${path}`);
        expect(response?.status(), path).toBe(200);
        expect(response?.headers()["cache-control"], path).toBe("private, no-store");
      }
      await page.goto(`${site.base}/account`);
      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await page.waitForURL(`${site.base}/`);
      expect(await page.textContent(".account-link")).toContain("Sign in");
      expect(await page.textContent("body")).not.toContain("admin.offline@example.org");

      const kept = await cachedPaths(page);
      expect(kept).toContain("/offline");
      const leaked = kept.filter((p) => p === "/account" || p.startsWith("/admin") || p.startsWith("/my-data"));
      expect(leaked).toEqual([]);

      // Nothing that was shown while signed in is in what the worker keeps.
      for (const name of await page.evaluate(() => caches.keys())) {
        const bodies = await page.evaluate(async (cacheName) => {
          const cache = await caches.open(cacheName);
          const texts: string[] = [];
          for (const request of await cache.keys()) {
            const response = await cache.match(request);
            if (response?.headers.get("content-type")?.startsWith("text/html")) texts.push(await response.text());
          }
          return texts;
        }, name);
        for (const body of bodies) expect(body).not.toContain("admin.offline@example.org");
      }

      await setOnline(false);
      for (const path of privatePages) {
        await page.goto(`${site.base}${path}`);
        const text = await page.textContent("body");
        expect(text, path).toContain("You are offline");
        expect(text, path).not.toContain("admin.offline@example.org");
      }
      await setOnline(true);
      await context.close();
    });
  },
);
