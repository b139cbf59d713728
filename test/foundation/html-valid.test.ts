import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { hasJava, nuErrors, warnNoJava } from "../helpers/nu.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Every page is valid HTML by the Nu HTML Checker (test/helpers/nu.ts): every page of the site map, the error pages,
 * a project page and the signed-in and staff pages. Any error fails the test; warnings are not counted.
 */
warnNoJava("html-valid.test.ts");

describe.skipIf(!hasJava)("valid HTML by the Nu HTML Checker", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("sqlite", { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("finds no error on any page, public, signed in or staff", async () => {
    const app = t.app;
    const publicPaths = [
      ...new Set([
        ...sitePages(FEATURES)
          .map((p) => p.path)
          .filter((path) => app.hasRoute({ method: "GET", url: path })),
        "/this-page-does-not-exist",
        "/developers",
        "/report?category=pothole",
        "/reports?near=Church+Lane",
        "/reports?near=Chruch",
        "/alerts?scope=street&street=high-street",
      ]),
    ];
    const projectLink = /href="(\/projects\/[a-z0-9-]+)"/.exec((await app.inject("/projects")).body)?.[1];
    if (projectLink) publicPaths.push(projectLink);
    const resident = await signInAs(app, "nu.resident@example.org", "resident");
    const admin = await signInAs(app, "nu.admin@example.org", "admin");
    const pages: { label: string; path: string; cookie?: string }[] = [
      ...publicPaths.map((path) => ({ label: path, path })),
      ...["/account", "/account/reports", "/account/data", "/report?category=pothole", "/alerts"].map((path) => ({
        label: `${path} (signed in)`,
        path,
        cookie: resident.cookie,
      })),
      ...["/admin", "/admin/reports", "/admin/log", "/admin/categories"].map((path) => ({
        label: `${path} (admin)`,
        path,
        cookie: admin.cookie,
      })),
    ];
    expect(pages.length).toBeGreaterThanOrEqual(20);
    const documents = new Map<string, string>();
    for (const page of pages) {
      const res = await app.inject({ url: page.path, headers: page.cookie ? { cookie: page.cookie } : {} });
      expect(String(res.headers["content-type"]), page.label).toContain("text/html");
      documents.set(page.label, res.body);
    }
    const errors = await nuErrors(documents);
    expect(errors).toEqual([]);
  }, 120_000);
});
