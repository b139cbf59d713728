import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sitePages } from "../../src/core/web/sitemap.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Every page is valid HTML by the Nu HTML Checker (vnu.jar, the W3C validator, from the vnu-jar package; run with
 * the machine's Java, never one its install script would download): every page of the site map, the error pages,
 * a project page and the signed-in and staff pages. Any error fails the test; warnings are not counted. Without
 * Java the test is skipped with a message, except in CI (CI=true), where it fails.
 */
const exec = promisify(execFile);
const vnuJar: string = createRequire(import.meta.url)("vnu-jar");

async function javaAvailable(): Promise<boolean> {
  try {
    await exec("java", ["-version"]);
    return true;
  } catch {
    return false;
  }
}

const hasJava = await javaAvailable();
if (!hasJava && process.env.CI === "true") throw new Error("Java is needed for the Nu HTML Checker test");
if (!hasJava)
  console.warn("html-valid.test.ts skipped: no java on this machine (apt-get install default-jre-headless)");

interface NuMessage {
  type: string;
  url: string;
  message: string;
  extract?: string;
}

describe.skipIf(!hasJava)("valid HTML by the Nu HTML Checker", () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp("sqlite", { seed: true });
    dir = mkdtempSync(join(tmpdir(), "civic-nu-"));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("finds no error on any page, public, signed in or staff", async () => {
    const app = t.app;
    const publicPaths = [
      ...new Set([
        ...sitePages.map((p) => p.path).filter((path) => app.hasRoute({ method: "GET", url: path })),
        "/this-page-does-not-exist",
        "/developers",
        "/report?category=pothole",
      ]),
    ];
    const projectLink = /href="(\/projects\/[a-z0-9-]+)"/.exec((await app.inject("/projects")).body)?.[1];
    if (projectLink) publicPaths.push(projectLink);
    const resident = await signInAs(app, "nu.resident@example.org", "resident");
    const admin = await signInAs(app, "nu.admin@example.org", "admin");
    const pages: { label: string; path: string; cookie?: string }[] = [
      ...publicPaths.map((path) => ({ label: path, path })),
      ...["/account", "/account/reports", "/account/data", "/report?category=pothole"].map((path) => ({
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
    const files = new Map<string, string>();
    for (const [i, page] of pages.entries()) {
      const res = await app.inject({ url: page.path, headers: page.cookie ? { cookie: page.cookie } : {} });
      expect(String(res.headers["content-type"]), page.label).toContain("text/html");
      const file = join(dir, `page-${i}.html`);
      writeFileSync(file, res.body);
      files.set(file, page.label);
    }
    // One Java process for every page: --exit-zero-always, as the messages are read from its JSON, not its status.
    const { stderr } = await exec(
      "java",
      ["-jar", vnuJar, "--format", "json", "--errors-only", "--exit-zero-always", ...files.keys()],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const messages = (JSON.parse(stderr) as { messages: NuMessage[] }).messages;
    const errors = messages
      .filter((m) => m.type === "error")
      .map((m) => `${files.get(m.url.replace(/^file:/, "")) ?? m.url}: ${m.message} ${m.extract ?? ""}`.trim());
    expect(errors).toEqual([]);
  }, 120_000);
});
