import { afterAll, beforeAll, expect, it } from "vitest";
import { issueChallenge } from "../../src/accounts/challenges.js";
import { describeEachDb, type TestApp, createTestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** A value for each path parameter: enough to reach the route (a 404 page is a page too). */
function fill(url: string): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_, name: string) => (name === "token" ? "x".repeat(43) : "1"))
    .replace("*", "x");
}

/** Answers never kept by a browser, a proxy or the service worker. */
const PRIVATE = "private, no-store";

/**
 * Issue 27 #2 ("Offline cache", the HTTP half): every answer served to a signed-in person, and every page opened
 * by an emailed link, is `Cache-Control: private, no-store`, decided in one place for every route; sign-out and
 * erasure tell the browser to drop its cache. The service worker's half is test/browser/offline-private.test.ts.
 */
describeEachDb("nothing private is kept on the device", (dialect) => {
  let t: TestApp;
  let admin: SignedIn;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    admin = await signInAs(t.app, "admin.cache@example.org", "admin");
  });
  afterAll(async () => {
    await t.close();
  });

  it("every page of every GET route answered to a signed-in person is private, no-store", async () => {
    const urls = [
      ...new Set(
        t.app.civic.routes
          .filter((r) => r.method === "GET")
          .map((r) => fill(r.url))
          // Public images, for which the session is never read: photos and map tiles (their error pages too).
          .filter((u) => !/^\/(?:api|assets|photos|tiles)\//.test(u)),
      ),
    ];
    expect(urls).toContain("/account");
    expect(urls).toContain("/admin/volunteers");
    const wrong: string[] = [];
    let pages = 0;
    for (const url of urls) {
      const res = await admin.get(url);
      const cacheControl = String(res.headers["cache-control"] ?? "");
      const isPage = String(res.headers["content-type"] ?? "").startsWith("text/html");
      if (isPage) pages++;
      if (isPage && cacheControl !== PRIVATE) {
        wrong.push(`${url} (${res.statusCode}, ${String(res.headers["content-type"])}): "${cacheControl}"`);
      }
    }
    expect(pages).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it("the same pages to a visitor who is not signed in may be kept, but are checked before each use", async () => {
    for (const url of ["/", "/report", "/reports", "/ideas", "/offline"]) {
      const res = await t.app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["cache-control"], url).toBe("no-cache");
      expect(res.headers["set-cookie"], url).toBeUndefined();
    }
  });

  it("pages opened by an emailed link are private even without a session, whether the link works or not", async () => {
    const db = t.app.civic.database.db;
    const { token } = await issueChallenge(
      db,
      t.app.civic.config.sessionSecret,
      { purpose: "my-data", email: "someone.private@example.org", accountId: null },
      t.app.civic.now(),
    );
    const live = await t.app.inject(`/my-data/open/${token}`);
    expect(live.statusCode).toBe(200);
    expect(live.headers["cache-control"]).toBe(PRIVATE);
    for (const url of [
      "/my-data/open/",
      "/sign-in/link/",
      "/ideas/confirm/",
      "/volunteer/confirm/",
      "/newsletter/confirm/",
    ]) {
      const res = await t.app.inject(`${url}${"y".repeat(43)}`);
      expect(res.headers["cache-control"], url).toBe(PRIVATE);
    }
  });

  it("sign-out tells the browser to clear the site's cache; account deletion its storage too (offline drafts)", async () => {
    const resident = await signInAs(t.app, "leaving.cache@example.org", "resident");
    const out = await resident.post("/sign-out");
    expect(out.statusCode).toBe(303);
    expect(out.headers["clear-site-data"]).toBe('"cache"');
    const everywhere = await signInAs(t.app, "leaving.everywhere@example.org", "resident");
    const ended = await everywhere.post("/account/sessions/end-all");
    expect(ended.statusCode).toBe(303);
    expect(ended.headers["clear-site-data"]).toBe('"cache"');
    expect(out.headers["cache-control"]).toBe(PRIVATE);

    const deleting = await signInAs(t.app, "deleting.cache@example.org", "resident");
    const deleted = await deleting.post("/account/delete", { confirm: "yes" }, "/account/delete");
    expect(deleted.statusCode).toBe(200);
    expect(deleted.headers["clear-site-data"]).toBe('"cache", "storage"');
    expect(deleted.headers["cache-control"]).toBe(PRIVATE);
  });
});
