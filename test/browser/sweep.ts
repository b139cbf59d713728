import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BrowserContext, Page, Response } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { setDepartmentDelivery } from "../../src/catalogue/delivery.js";
import { staffPages } from "../../src/core/staff/console.js";
import { sitePages } from "../../src/core/web/sitemap.js";
import { FEATURES } from "../../src/features.js";
import { sentPagePath } from "../../src/reports/sent-page.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp } from "../helpers/app.js";
import {
  addSessionCookie,
  axeViolations,
  browserAvailable,
  browserSite,
  formatViolations,
  watchPageProblems,
} from "../helpers/browser.js";
import { hasJava, nuErrors, warnNoJava } from "../helpers/nu.js";
import { signInAs } from "../helpers/staff.js";

/**
 * The browser sweep (issue 34, WCAG 1.4.10 reflow): every page of the site map plus the signed-in, staff (admin),
 * form-error and success states, at 320, 390 and 1280 CSS pixels, in one Chromium with one context per width:
 *
 * - no sideways scroll (the document is no wider than the window), and no text squeezed into a column a few letters
 *   wide instead;
 * - on a phone, a staff page's heading is on the first screen (the staff menu folds like the site menu);
 * - axe finds no WCAG 2.0/2.1 A or AA violation, each state checked once where its page differs: the public pages
 *   (the site map's and the search, place and error answers) at 1280 px with JavaScript (pages.test.ts checks them
 *   at 320 px without), the signed-in and form states at 320 px, the staff pages at 1280 px (their menu is a side
 *   column there) and one of them at 320 px too (the menu folded), a report's, project's and business's page at both;
 * - no Content-Security-Policy violation or script error on any page at any width;
 * - the served HTML of each state is valid by the Nu HTML Checker, once per state (html-valid.test.ts checks the
 *   plain pages without a browser; this adds the form-error and success answers);
 * - the measured overflow and heading positions in test-artifacts/screenshots/<width>/measurements.json, and a
 *   full-page screenshot in test-artifacts/screenshots/<width>/<name>.png of each state with a problem at that width;
 *   of every state with SWEEP_SCREENSHOTS=1 (the screenshots are for people to look at, nothing compares them, and
 *   taking all of them was a quarter of the sweep's time).
 */
/** The widths swept, each by a file of its own (sweep-320/390/1280.test.ts), so the test workers share them. */
export const SWEEP_VIEWPORTS = {
  320: { width: 320, height: 640 },
  390: { width: 390, height: 844 },
  1280: { width: 1280, height: 800 },
} as const;
const SCREENSHOTS = resolve("test-artifacts/screenshots");
/** SWEEP_SCREENSHOTS=1: a screenshot of every state, not only of those with a problem. */
const EVERY_SCREENSHOT = process.env.SWEEP_SCREENSHOTS === "1";

const PHONE = [320] as const;
const WIDE = [1280] as const;
const BOTH = [320, 1280] as const;

type Who = "anonymous" | "resident" | "admin";

interface SweepState {
  /** File name of its screenshots, and the label in messages. */
  name: string;
  path: string;
  who: Who;
  /** After opening `path`: what brings the page into this state (a form sent), ending on the new page. */
  act?: (page: Page) => Promise<void>;
  /** The widths axe checks it at. */
  axe: readonly number[];
  staff?: boolean;
  /** The status `path` answers with (200 unless said). */
  status?: number;
}

/** A file name for a path: "/account/reports" → "account-reports". */
function slug(path: string): string {
  const s = path
    .replace(/\?.*$/, "")
    .replace(/[^a-z0-9]+/gi, "-")
    .replace(/^-|-$/g, "");
  return s === "" ? "home" : s.toLowerCase();
}

/**
 * A full-page PNG, as page.screenshot({ fullPage: true }) takes it, but asking Chromium to favour speed over size
 * (optimizeForSpeed, a faster zlib setting): it halves the sweep's time spent on screenshots.
 */
async function fullPageShot(page: Page, path: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  const shot = (await cdp.send("Page.captureScreenshot", {
    format: "png",
    captureBeyondViewport: true,
    clip: { x: 0, y: 0, width, height, scale: 1 },
    optimizeForSpeed: true,
  } as never)) as { data: string };
  await cdp.detach();
  writeFileSync(path, Buffer.from(shot.data, "base64"));
}

/**
 * The sweep at one width, as a file's describe block; `nu`: this file also runs the Nu HTML Checker over the served
 * HTML (once per state: it is the same at every width).
 */
export function sweepAt(width: keyof typeof SWEEP_VIEWPORTS, { nu: checkHtml }: { nu: boolean }): void {
  if (checkHtml) warnNoJava(`sweep-${width}.test.ts`);
  describeSweep(width, checkHtml);
}

function describeSweep(width: keyof typeof SWEEP_VIEWPORTS, checkHtml: boolean): void {
  const WIDTHS = [SWEEP_VIEWPORTS[width]];
  describe.skipIf(!browserAvailable())(`browser sweep at ${width} px`, () => {
    const site = browserSite((base) =>
      createTestApp("sqlite", {
        seed: true,
        // A closed loopback port: nothing leaves the machine, and the map copes with tiles that do not load.
        // The site's own Open311 API plays the council of a department's connection check (on loopback).
        env: {
          BASE_URL: base,
          MAP_TILE_URL: "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png",
          FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
        },
        routes: (app) =>
          app.get("/test-server-error", async () => {
            throw new Error("boom");
          }),
      }),
    );
    const cookies = new Map<Who, string>();
    const states: SweepState[] = [];

    beforeAll(async () => {
      const app = site.app;
      const resident = await signInAs(app, "sweep.resident.with.a.rather.long.address@example.org", "resident");
      const admin = await signInAs(app, "sweep.admin@example.org", "admin");
      cookies.set("resident", resident.cookie);
      cookies.set("admin", admin.cookie);
      // A report with long unbroken words (an address, a web address, an email address) that must wrap, not widen the
      // page, wherever it is shown: its public page, My reports, the staff inbox and report, the audit log.
      const long = await submitReport(app.civic, {
        categoryCode: "pothole",
        title: "Pothole outside Hollybush-Cottage-and-the-Old-Forge-Workshops-Lane",
        description:
          "Deep hole on the corner. Photos: https://photos.example.org/albums/2026/pothole-outside-the-old-forge-by-the-war-memorial/full-size",
        lat: 50.9865,
        lng: -2.044,
        locationText: "Outside-the-Old-Forge-Workshops-by-the-war-memorial-on-Church-Lane",
        placeId: null,
        addressId: null,
        attributes: { road_or_pavement: ["road"] },
        photos: [],
        mediaUrl: null,
        reporter: { email: resident.email, name: "Sweep Resident", phone: null, shareContact: false },
        deviceId: null,
        accountId: resident.accountId,
        source: "web",
        apiKeyId: null,
      });
      const ref = long.reference;
      // A status change and a note, so the audit log has entries (with their details) at every width.
      const staffPage = `/admin/reports/${ref}`;
      const expected = /name="expected" value="([^"]+)"/.exec((await admin.get(staffPage)).body)?.[1] ?? "";
      await admin.post(
        `${staffPage}/status`,
        { status: "investigating", note: "We are looking into it.", expected },
        staffPage,
      );

      const publicPaths = sitePages(FEATURES)
        .map((p) => p.path)
        .filter((path) => app.hasRoute({ method: "GET", url: path }));
      for (const path of publicPaths) states.push({ name: slug(path), path, who: "anonymous", axe: WIDE });
      // The answers of the search and place box, and the error pages.
      for (const [name, path, status] of [
        ["reports-near-street", "/reports?near=Church+Lane", 200],
        ["reports-near-misspelt", "/reports?near=Chruch", 200],
        ["reports-search", "/reports?q=pothole", 200],
        ["reports-search-nothing", "/reports?q=zzzzqq", 200],
        ["businesses-search", "/businesses?q=pubs", 200],
        ["search", "/search?q=cafe", 200],
        ["server-error", "/test-server-error", 500],
      ] as const) {
        states.push({ name, path, who: "anonymous", axe: WIDE, status });
      }
      const projectLink = /href="(\/projects\/[a-z0-9-]+)"/.exec((await app.inject("/projects")).body)?.[1];
      const businessLink = /href="(\/businesses\/[a-z0-9-]+)"/.exec((await app.inject("/businesses")).body)?.[1];
      for (const [name, path] of [
        ["report-page", `/reports/${ref}`],
        ["not-found", "/this-page-does-not-exist"],
        ...(projectLink ? [["project-page", projectLink]] : []),
        ...(businessLink ? [["business-page", businessLink]] : []),
      ] as [string, string][]) {
        states.push({ name, path, who: "anonymous", axe: BOTH, status: name === "not-found" ? 404 : 200 });
      }
      // Form errors and successes.
      states.push(
        {
          name: "report-form-error",
          path: "/report?category=pothole",
          who: "anonymous",
          axe: PHONE,
          act: async (page) => {
            await page.getByRole("button", { name: "Send report" }).click();
            await page.waitForSelector(".error-summary");
          },
        },
        {
          name: "sign-in-wrong-password",
          path: "/sign-in",
          who: "anonymous",
          axe: PHONE,
          act: async (page) => {
            await page.fill("#password-email", "nobody@example.org");
            await page.fill("#password", "not the password at all");
            await page.getByRole("button", { name: "Sign in with password" }).click();
            await page.waitForSelector(".error-summary");
          },
        },
        { name: "report-sent", path: sentPagePath(app.civic.config.sessionSecret, ref), who: "anonymous", axe: PHONE },
      );
      for (const path of ["/account", "/account/reports", "/account/data", "/report?category=pothole"]) {
        states.push({ name: `signed-in-${slug(path)}`, path, who: "resident", axe: PHONE });
      }
      states.push({ name: "signed-in-account-name-saved", path: "/account?done=name", who: "resident", axe: PHONE });
      for (const entry of staffPages(app.civic.features)) {
        states.push({ name: `staff-${slug(entry.path)}`, path: entry.path, who: "admin", axe: WIDE, staff: true });
      }
      states.push(
        { name: "staff-report", path: `/admin/reports/${ref}`, who: "admin", axe: BOTH, staff: true },
        {
          name: "staff-report-note-saved",
          path: `/admin/reports/${ref}`,
          who: "admin",
          axe: WIDE,
          staff: true,
          act: async (page) => {
            await page.fill(
              "#staff-body",
              "Passed to the contractor: https://contractor.example.org/jobs/2026/resurfacing-church-lane-by-the-memorial",
            );
            await page.getByRole("button", { name: "Save the note" }).click();
            await page.waitForSelector("[role=status]");
          },
        },
        {
          name: "staff-report-form-error",
          path: `/admin/reports/${ref}`,
          who: "admin",
          axe: WIDE,
          staff: true,
          act: async (page) => {
            await page.fill("#staff-body", "   ");
            await page.getByRole("button", { name: "Save the note" }).click();
            await page.waitForSelector(".error-summary");
          },
        },
      );
      // A department that receives reports by Open311 (issue 37): its delivery form, a refused save, a check.
      const lighting = await app.civic.database.db
        .selectFrom("categories")
        .select("department_id")
        .where("code", "=", "streetlight")
        .executeTakeFirstOrThrow();
      const departmentPath = `/admin/departments/${lighting.department_id}`;
      await setDepartmentDelivery(
        app.civic.database.db,
        app.civic.config,
        lighting.department_id as number,
        { method: "open311", endpoint: `${site.base}/api/v2/`, services: { streetlight: "streetlight" } },
        { accountId: admin.accountId, at: new Date() },
      );
      states.push(
        { name: "staff-department-delivery", path: departmentPath, who: "admin", axe: BOTH, staff: true },
        {
          name: "staff-department-delivery-error",
          path: departmentPath,
          who: "admin",
          axe: WIDE,
          staff: true,
          act: async (page) => {
            await page.fill("#admin-attributes", "lamp_id");
            await page.getByRole("button", { name: "Save how reports are sent" }).click();
            await page.waitForSelector(".error-summary");
          },
        },
        {
          name: "staff-department-check",
          path: departmentPath,
          who: "admin",
          axe: BOTH,
          staff: true,
          act: async (page) => {
            await page.getByRole("button", { name: "Check the connection" }).click();
            await page.waitForSelector("#check-result");
          },
        },
      );
    });

    it(`reflows without sideways scroll, passes axe${checkHtml ? " and the Nu checker" : ""}, and leaves its measurements`, async () => {
      const started = Date.now();
      // Every failure, so one run names every page that fails and why.
      const problems: string[] = [];
      const served = new Map<string, string>();
      const measured: Record<
        string,
        Record<string, { overflow: number; h1: { top: number; bottom: number } | null }>
      > = {};
      for (const viewport of WIDTHS) {
        const dir = join(SCREENSHOTS, String(viewport.width));
        mkdirSync(dir, { recursive: true });
        const context: BrowserContext = await site.newContext({ viewport });
        const page = await context.newPage();
        const pageProblems = watchPageProblems(page);
        let signedInAs: Who = "anonymous";
        for (const state of states) {
          if (state.who !== signedInAs) {
            await context.clearCookies();
            const cookie = cookies.get(state.who);
            if (cookie) await addSessionCookie(context, site.base, cookie);
            signedInAs = state.who;
          }
          const problemsBefore = problems.length + pageProblems.length;
          let response: Response | null = await page.goto(`${site.base}${state.path}`, { waitUntil: "load" });
          const where = `${state.name} (${state.path}) at ${viewport.width} px`;
          if (response?.status() !== (state.status ?? 200)) problems.push(`${where}: answered ${response?.status()}`);
          if (state.act) {
            const [next] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), state.act(page)]);
            response = next;
          }
          if (!served.has(state.name) && response) served.set(state.name, await response.text());
          const m = await page.evaluate(() => ({
            overflow: document.documentElement.scrollWidth - window.innerWidth,
            // Text squeezed into a column a few letters wide (a caption beside a stacked table did that): the boxes of
            // more than 20 characters narrower than 4em (but wider than the 1 px of what is hidden for screen readers only).
            squeezed: Array.from(
              document.querySelectorAll("main :is(p, li, dt, dd, th, td, caption, h1, h2, h3, label)"),
            )
              .filter((e) => {
                const r = e.getBoundingClientRect();
                const em = parseFloat(getComputedStyle(e).fontSize);
                return r.width > 2 && r.width < 4 * em && (e.textContent ?? "").trim().length > 20;
              })
              .map((e) => `<${e.tagName.toLowerCase()}> “${(e.textContent ?? "").trim().slice(0, 30)}…”`),
            h1: (() => {
              const h = document.querySelector("h1")?.getBoundingClientRect();
              return h
                ? { top: Math.round(h.top + window.scrollY), bottom: Math.round(h.bottom + window.scrollY) }
                : null;
            })(),
          }));
          (measured[state.name] ??= {})[viewport.width] = { overflow: m.overflow, h1: m.h1 };
          for (const text of m.squeezed) problems.push(`${where}: ${text} is squeezed into a column narrower than 4em`);
          if (m.overflow > 0) problems.push(`${where}: ${m.overflow} px of sideways scroll`);
          if (state.staff && viewport.width < 600 && (m.h1 === null || m.h1.top + 48 > viewport.height)) {
            // At least its first line on the first screen (a long report title may take more).
            problems.push(
              `${where}: the heading starts at y = ${m.h1?.top}, not on the first screen (${viewport.height} px)`,
            );
          }
          if (state.axe.includes(viewport.width)) {
            const v = await axeViolations(page);
            if (v.length > 0) problems.push(formatViolations(where, v));
          }
          if (EVERY_SCREENSHOT || problems.length + pageProblems.length > problemsBefore) {
            await fullPageShot(page, join(dir, `${state.name}.png`));
          }
        }
        await context.close();
        problems.push(...pageProblems.map((p) => `at ${viewport.width} px: ${p}`));
      }
      writeFileSync(join(SCREENSHOTS, String(width), "measurements.json"), `${JSON.stringify(measured, null, 1)}\n`);
      const nu = checkHtml && hasJava ? await nuErrors(served) : [];
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const widths = WIDTHS.map((w) => w.width).join(", ");
      console.log(
        `Browser sweep: ${states.length} pages at ${widths} px in ${seconds} s; measurements and screenshots in ${SCREENSHOTS}`,
      );
      expect(states.length).toBeGreaterThanOrEqual(40);
      problems.push(...nu.map((e) => `Nu HTML Checker: ${e}`));
      expect(problems.join("\n")).toBe("");
    }, 240_000);
  });
}
