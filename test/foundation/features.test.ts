import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import type { Feature } from "../../src/core/context.js";
import { staffPages } from "../../src/core/staff/console.js";
import { FEATURES } from "../../src/features.js";
import { moderatedKinds } from "../../src/moderation/registry.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";

// Features plug in through their manifests and the one list in src/features.ts: what an app has comes from the
// list it was built with, never from what some module registered when it was imported.
describe("the feature list", () => {
  let full: TestApp;
  let withoutIdeas: TestApp;
  beforeAll(async () => {
    full = await createTestApp("sqlite");
    withoutIdeas = await createTestApp("sqlite", { features: FEATURES.filter((f) => f.name !== "ideas") });
  });
  afterAll(async () => {
    await full?.close();
    await withoutIdeas?.close();
  });

  it("names every feature once, accounts first (so the account is erased last)", () => {
    const names = FEATURES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe("accounts");
  });

  it("gives the personal-data sources, moderated kinds and staff pages of the list, in its order", () => {
    const civic = full.app.civic;
    expect(personalDataSources(civic).map((s) => s.key)).toEqual(
      FEATURES.flatMap((f) => f.personalData ?? []).map((s) => s.key),
    );
    expect(personalDataSources(civic).map((s) => s.key)).toEqual([
      "account",
      "mail",
      "reportQuestionnaires",
      "reports",
      "reportFollowing",
      "reportAlerts",
      "newsletter",
      "ideas",
      "volunteering",
      "moderation",
    ]);
    expect(moderatedKinds(civic).map((k) => k.kind)).toEqual(["report", "update", "photo", "idea"]);
    expect(staffPages(civic.features).map((p) => p.path)).toContain("/admin/ideas");
  });

  it("builds two apps in one process with different lists, each with only its own features", async () => {
    expect(personalDataSources(withoutIdeas.app.civic).map((s) => s.key)).not.toContain("ideas");
    expect(moderatedKinds(withoutIdeas.app.civic).map((k) => k.kind)).not.toContain("idea");
    expect((await withoutIdeas.app.inject("/ideas")).statusCode).toBe(404);
    expect((await full.app.inject("/ideas")).statusCode).toBe(200);

    const admin = await signInAs(withoutIdeas.app, "admin@example.org", "admin");
    const home = await withoutIdeas.app.inject({ url: "/admin", headers: { cookie: admin.cookie } });
    expect(home.statusCode).toBe(200);
    expect(home.body).not.toContain('href="/admin/ideas"');
    const fullAdmin = await signInAs(full.app, "admin@example.org", "admin");
    const fullHome = await full.app.inject({ url: "/admin", headers: { cookie: fullAdmin.cookie } });
    expect(fullHome.body).toContain('href="/admin/ideas"');
  });

  it("lists in /sitemap.xml what the app's features contribute, and nothing of a feature left out", async () => {
    const withIdeas = (await full.app.inject("/sitemap.xml")).body;
    expect(withIdeas).toContain("/ideas</loc>");
    const without = (await withoutIdeas.app.inject("/sitemap.xml")).body;
    expect(without).toContain("/projects</loc>");
    expect(without).not.toContain("/ideas");

    // A feature adds entries by its manifest alone: after the floor's pages, in the list's order.
    const extra: Feature = {
      name: "extra",
      sitemap: [{ version: async () => 1, entries: async () => [{ path: "/extra/one", lastmod: "2026-11-01" }] }],
    };
    const withExtra = await createTestApp("sqlite", { features: [...FEATURES, extra] });
    try {
      const body = (await withExtra.app.inject("/sitemap.xml")).body;
      expect(body).toMatch(/<loc>[^<]+\/extra\/one<\/loc><lastmod>2026-11-01<\/lastmod>/);
      expect(body.indexOf("/extra/one")).toBeGreaterThan(body.lastIndexOf("/ideas"));
    } finally {
      await withExtra.close();
    }
  });

  it("lists in /llms.txt and /sitemap.xml only the pages and resources of the app's features", async () => {
    const lean = await createTestApp("sqlite", {
      features: FEATURES.filter((f) => !["ideas", "businesses"].includes(f.name)),
    });
    try {
      const llms = (await lean.app.inject("/llms.txt")).body;
      const sitemap = (await lean.app.inject("/sitemap.xml")).body;
      for (const text of [llms, sitemap]) {
        expect(text).toContain("/projects");
        expect(text).not.toMatch(/\/ideas[/)<.]/);
        expect(text).not.toContain("/ideas)");
        expect(text).not.toMatch(/\/businesses[)<]/);
      }
      expect(llms).not.toContain("/api/v1/businesses");
      expect(llms).not.toContain("/ideas.atom");
      const full_ = (await full.app.inject("/llms.txt")).body;
      expect(full_).toContain("/ideas)");
      expect(full_).toContain("/api/v1/businesses)");
    } finally {
      await lean.close();
    }
    // A feature adds its pages by its manifest alone.
    const extra: Feature = {
      name: "extra",
      pages: [{ path: "/extra", title: "Extra page", summary: "What the extra page is for.", placement: "nav" }],
      routes: [{ plugin: async (app) => void app.get("/extra", async () => "extra") }],
    };
    const withExtra = await createTestApp("sqlite", { features: [...FEATURES, extra] });
    try {
      expect((await withExtra.app.inject("/llms.txt")).body).toContain("[Extra page](");
      expect((await withExtra.app.inject("/sitemap.xml")).body).toContain("/extra</loc>");
    } finally {
      await withExtra.close();
    }
  });

  it("builds the header menu and the footer from the features' manifests: no link to a feature left out", async () => {
    /** The links of the header's menu and of the footer of a page. */
    const links = (body: string) => {
      const navs = [...body.matchAll(/<nav class="site-nav[^"]*" aria-label="Main">([\s\S]*?)<\/nav>/g)];
      const footer = /<nav aria-label="Footer">([\s\S]*?)<\/nav>/.exec(body)?.[1] ?? "";
      const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
      return { nav: hrefs(navs[0]?.[1] ?? ""), phone: hrefs(navs[1]?.[1] ?? ""), footer: hrefs(footer) };
    };
    const menu = links((await full.app.inject("/about")).body);
    expect(menu.nav).toEqual([
      "/report",
      "/reports",
      "/ideas",
      "/projects",
      "/volunteer",
      "/newsletter",
      "/businesses",
      "/councillors",
    ]);
    expect(menu.phone).toEqual(menu.nav);
    expect(menu.footer.slice(0, 7)).toEqual([
      "/stats",
      "/my-data",
      "/about",
      "/terms",
      "/privacy",
      "/accessibility",
      "/developers",
    ]);
    for (const path of ["/about", "/reports", "/no-such-page"]) {
      const without = links((await withoutIdeas.app.inject(path)).body);
      expect(without.nav, path).toEqual(menu.nav.filter((p) => p !== "/ideas"));
      expect(without.phone, path).toEqual(without.nav);
    }
    const lean = await createTestApp("sqlite", {
      features: FEATURES.filter((f) => !["businesses", "stats", "developers"].includes(f.name)),
    });
    try {
      const page = (await lean.app.inject("/about")).body;
      const { nav, footer } = links(page);
      expect(nav).not.toContain("/businesses");
      expect(footer).not.toContain("/stats");
      expect(footer).not.toContain("/developers");
      expect(footer).toContain("/privacy");
      // A feature adds its links by its manifest alone.
      const extra: Feature = {
        name: "extra",
        menu: [{ path: "/extra", label: "Extra", placement: "nav", order: 15 }],
      };
      const withExtra = await createTestApp("sqlite", { features: [...FEATURES, extra] });
      try {
        expect(links((await withExtra.app.inject("/about")).body).nav.slice(0, 3)).toEqual([
          "/report",
          "/extra",
          "/reports",
        ]);
      } finally {
        await withExtra.close();
      }
    } finally {
      await lean.close();
    }
  });

  it("links the sign-in page and the reports feed only from an app with the features that contribute them", async () => {
    const full_ = (await full.app.inject("/about")).body;
    expect(full_).toContain('href="/sign-in"');
    expect(full_).toContain(
      '<link rel="alternate" type="application/atom+xml" title="New reports" href="/reports.atom"',
    );
    const lean = await createTestApp("sqlite", {
      features: FEATURES.filter((f) => !["accounts", "reports"].includes(f.name)),
    });
    try {
      const page = await lean.app.inject("/about");
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain("/sign-in");
      expect(page.body).not.toContain('href="/account"');
      expect(page.body).not.toContain("/reports.atom");
    } finally {
      await lean.close();
    }
  });

  it("puts on the home page and the 404 page the blocks the app's features contribute, none of a feature left out", async () => {
    const home = (await full.app.inject("/")).body;
    expect(home).toContain('action="/reports" class="place-search"');
    expect(home).toContain('id="latest-heading"');
    expect((await full.app.inject("/no-such-page")).body).toContain('action="/reports" class="place-search"');
    const lean = await createTestApp("sqlite", { features: FEATURES.filter((f) => f.name !== "reports") });
    try {
      const page = await lean.app.inject("/");
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('action="/reports"');
      expect(page.body).not.toContain("Latest reports");
      const missing = await lean.app.inject("/no-such-page");
      expect(missing.statusCode).toBe(404);
      expect(missing.body).not.toContain('action="/reports"');
      expect(missing.body).not.toContain('href="/status"');
    } finally {
      await lean.close();
    }
  });

  it("asks every feature's search source for /search, and none of a feature left out", async () => {
    const all = await full.app.inject("/search?q=pothole");
    expect(all.statusCode).toBe(200);
    expect(full.app.civic.features.flatMap((f) => f.search ?? []).map((s) => s.label)).toEqual([
      "Reports",
      "Local businesses",
    ]);
    const lean = await createTestApp("sqlite", { features: FEATURES.filter((f) => f.name !== "businesses") });
    try {
      expect(lean.app.civic.features.flatMap((f) => f.search ?? []).map((s) => s.label)).toEqual(["Reports"]);
      expect((await lean.app.inject("/search?q=bakery")).statusCode).toBe(200);
    } finally {
      await lean.close();
    }
  });

  it("refuses to start when a feature puts a route under /admin outside the staff console", async () => {
    const stray: Feature = {
      name: "stray",
      routes: [{ plugin: async (app) => void app.get("/admin/stray", async () => "unguarded") }],
    };
    await expect(createTestApp("sqlite", { features: [...FEATURES, stray] })).rejects.toThrow(
      /outside the staff console/,
    );
  });

  it("guards every staff route of every feature, and unknown paths under /admin, before anything else", async () => {
    for (const url of ["/admin", "/admin/ideas", "/admin/no-such-page"]) {
      const res = await full.app.inject(url);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toMatch(/^\/sign-in\?next=/);
    }
    const resident = await signInAs(full.app, "resident@example.org", "resident");
    const res = await full.app.inject({ url: "/admin/no-such-page", headers: { cookie: resident.cookie } });
    expect(res.statusCode).toBe(403);
  });
});
