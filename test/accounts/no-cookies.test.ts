import { afterAll, beforeAll, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/** Anonymous visitors get no cookie at all: every page and API answers without Set-Cookie. */
describeEachDb("no cookies for anonymous visitors", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  it("sends no Set-Cookie on any page in the site map, any parameterless GET route, or a form post", async () => {
    const paths = new Set(sitePages(FEATURES).map((p) => p.path));
    for (const r of t.app.civic.routes) {
      if (r.method === "GET" && !r.url.includes(":") && !r.url.includes("*")) paths.add(r.url);
    }
    paths.add("/sign-in/link/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    paths.add("/my-data/open/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    paths.add("/no-such-page");
    expect(paths.size).toBeGreaterThan(25);
    for (const path of paths) {
      const res = await t.app.inject({ method: "GET", url: path });
      expect(res.headers["set-cookie"], path).toBeUndefined();
      expect(res.statusCode, path).toBeLessThan(500);
    }
    const post = await t.app.inject({
      method: "POST",
      url: "/sign-in/email",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "email=x",
    });
    expect(post.headers["set-cookie"]).toBeUndefined();
  });

  it("clears a cookie that names no session, and ignores a malformed one without an error", async () => {
    const stale = await t.app.inject({ url: "/about", headers: { cookie: `session=${"B".repeat(43)}` } });
    expect(stale.statusCode).toBe(200);
    expect(String(stale.headers["set-cookie"])).toContain("Max-Age=0");
    const junk = await t.app.inject({ url: "/about", headers: { cookie: "session=%%%\u0000; other=1" } });
    expect(junk.statusCode).toBe(200);
    const others = await t.app.inject({ url: "/about", headers: { cookie: "theme=dark" } });
    expect(others.headers["set-cookie"]).toBeUndefined();
  });
});
