import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * The staff console's authorisation matrix. Every route registered under /admin (found from the app itself, so a
 * page added later is covered without touching this test) is tried as anonymous, resident, moderator and admin.
 * ADMIN_ONLY is the list of routes moderators may not use; a route is admin-only exactly when it is listed.
 */
const ADMIN_ONLY = new Set<string>([
  "* /admin/staff",
  "* /admin/api-keys",
  "POST /admin/api-keys/:id/revoke",
  "GET /admin/volunteers.csv",
  "* /admin/ban-list",
  "POST /admin/ban-list/remove",
  "POST /admin/moderation/reports/:reference/restore",
  "POST /admin/moderation/strikes/overrule",
  "GET /admin/categories",
  "* /admin/categories/new",
  "* /admin/categories/:code",
  "POST /admin/categories/:code/retire",
  "POST /admin/categories/:code/unretire",
  "* /admin/categories/:code/questions",
  "* /admin/categories/:code/questions/:question",
  "POST /admin/categories/:code/questions/:question/move",
  "POST /admin/categories/:code/questions/:question/remove",
  "* /admin/departments",
  "* /admin/departments/:id",
  "POST /admin/departments/:id/delete",
  "POST /admin/departments/:id/delivery",
  "POST /admin/departments/:id/check",
  "* /admin/response-templates",
  "* /admin/response-templates/:id",
  "POST /admin/response-templates/:id/delete",
]);

function isAdminOnly(method: string, url: string): boolean {
  return ADMIN_ONLY.has(`${method} ${url}`) || ADMIN_ONLY.has(`* ${url}`);
}

/** A concrete URL for a route pattern: parameters get an id that does not exist. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, "0").replace(/\*$/, "x");
}

describeEachDb("staff console authorisation", (dialect) => {
  let t: TestApp;
  let routes: { method: string; url: string }[];
  let resident: SignedIn;
  let moderator: SignedIn;
  let admin: SignedIn;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    routes = t.app.civic.routes
      .filter((r) => (r.url === "/admin" || r.url.startsWith("/admin/")) && r.method !== "HEAD")
      .filter((r, i, all) => all.findIndex((o) => o.method === r.method && o.url === r.url) === i);
    resident = await signInAs(t.app, "resident@example.org", "resident");
    moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    admin = await signInAs(t.app, "admin@example.org", "admin");
  });
  afterAll(async () => t?.close());

  it("finds the staff routes, including the home page and the audit log", () => {
    const urls = routes.map((r) => `${r.method} ${r.url}`);
    expect(urls).toContain("GET /admin");
    expect(urls).toContain("GET /admin/log");
    for (const community of [
      "GET /admin/projects",
      "POST /admin/projects",
      "POST /admin/projects/:id",
      "POST /admin/projects/:id/updates",
      "GET /admin/ideas",
      "POST /admin/ideas/:id",
      "GET /admin/volunteers",
      "POST /admin/newsletter/:id",
    ]) {
      expect(urls).toContain(community);
    }
    for (const action of ["category", "forward", "duplicate", "assign"]) {
      expect(urls).toContain(`POST /admin/reports/:reference/${action}`);
    }
    for (const listed of ADMIN_ONLY) expect(urls.some((u) => u.endsWith(` ${listed.split(" ")[1]!}`))).toBe(true);
  });

  it("sends anonymous visitors to sign in, and back to the page afterwards", async () => {
    for (const r of routes) {
      const url = concrete(r.url);
      const res = await t.app.inject({ method: r.method as "GET", url });
      expect(res.statusCode, `${r.method} ${url}`).toBe(303);
      const location = String(res.headers.location);
      expect(location, `${r.method} ${url}`).toMatch(/^\/sign-in\?next=/);
      if (r.method === "GET") expect(decodeURIComponent(location.slice("/sign-in?next=".length))).toBe(url);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  async function call(who: SignedIn, method: string, url: string) {
    return method === "GET" ? who.get(url) : who.post(url);
  }

  it("gives residents 403 on every staff route", async () => {
    for (const r of routes) {
      const res = await call(resident, r.method, concrete(r.url));
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.body).toContain("not a staff account");
    }
  });

  it("lets moderators in, except on the admin-only pages", async () => {
    for (const r of routes) {
      const res = await call(moderator, r.method, concrete(r.url));
      const label = `${r.method} ${r.url} → ${res.statusCode}`;
      if (isAdminOnly(r.method, r.url)) {
        expect(res.statusCode, label).toBe(403);
        expect(res.body).toContain("administrators only");
      } else {
        expect(res.statusCode, label).toBeLessThan(500);
        expect(res.statusCode, label).not.toBe(403);
        if (res.statusCode === 303) expect(String(res.headers.location), label).not.toMatch(/^\/sign-in/);
      }
    }
  });

  it("gives moderators 403 on admin-only paths whatever the method; 405 with Allow only to admins", async () => {
    const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
    const paths = [...new Set(routes.map((r) => r.url))];
    const adminOnlyPaths = paths.filter((url) =>
      routes.filter((r) => r.url === url).every((r) => isAdminOnly(r.method, r.url)),
    );
    expect(adminOnlyPaths.length).toBeGreaterThan(10);
    for (const url of adminOnlyPaths) {
      const own = t.app.civic.routes.filter((r) => r.url === url).map((r) => r.method);
      for (const method of methods) {
        const label = `${method} ${url}`;
        const headers = { "content-type": "application/x-www-form-urlencoded" };
        const asModerator = await t.app.inject({
          method,
          url: concrete(url),
          headers: { ...headers, cookie: moderator.cookie },
        });
        expect(asModerator.statusCode, label).toBe(403);
        expect(asModerator.headers.allow, label).toBeUndefined();
        if (!own.includes(method)) {
          const asAdmin = await t.app.inject({
            method,
            url: concrete(url),
            headers: { ...headers, cookie: admin.cookie },
          });
          expect(asAdmin.statusCode, label).toBe(405);
          expect(String(asAdmin.headers.allow), label).toContain(own.includes("GET") ? "GET" : "POST");
        }
      }
    }
  });

  it("lets admins use every staff route", async () => {
    for (const r of routes) {
      const res = await call(admin, r.method, concrete(r.url));
      const label = `${r.method} ${r.url} → ${res.statusCode}`;
      expect(res.statusCode, label).toBeLessThan(500);
      expect(res.statusCode, label).not.toBe(403);
      if (res.statusCode === 303) expect(String(res.headers.location), label).not.toMatch(/^\/sign-in/);
    }
  });

  it("shows each role only the staff pages it may open", async () => {
    const asModerator = (await moderator.get("/admin")).body;
    const asAdmin = (await admin.get("/admin")).body;
    expect(asModerator).toContain('href="/admin/log"');
    expect(asAdmin).toContain('href="/admin/log"');
    for (const listed of ADMIN_ONLY) {
      const path = listed.split(" ")[1]!;
      if (!path.includes(":")) expect(asModerator).not.toContain(`href="${path}"`);
    }
  });

  it("refuses a staff form post without this session's form token", async () => {
    const post = routes.find((r) => r.method === "POST");
    if (!post) return;
    const res = await t.app.inject({
      method: "POST",
      url: concrete(post.url),
      headers: { cookie: admin.cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: `_csrf=${encodeURIComponent(await moderator.token())}`,
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain("This form has expired");
  });
});
