import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { type TestSmtp, startTestSmtp } from "../helpers/smtp.js";
import { hasGpsTag, jpegWithGps } from "../helpers/images.js";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { createTestApp } from "../helpers/app.js";
import {
  axeViolations,
  browserAvailable,
  formatViolations,
  keepOnLoopback,
  watchPageProblems,
  browserSite,
} from "../helpers/browser.js";

/**
 * The whole reporting flow in Chromium, on SQLite: choosing a category, placing the pin with the mouse, the
 * keyboard and "Use my location", the no-JavaScript gazetteer route, photos (whose EXIF/GPS is gone afterwards),
 * anonymous and with email (arriving at a real SMTP server), validation errors, the confirmation, the public page
 * and the status lookup, with axe on every step.
 */
describe.skipIf(!browserAvailable())("reporting an issue in Chromium", { timeout: 120_000 }, () => {
  let smtp: TestSmtp;
  let tiles: Server;
  let offset = 0;

  const site = browserSite(
    async () => {
      const tile = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#dfe8d8" } })
        .png()
        .toBuffer();
      tiles = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "image/png", "access-control-allow-origin": "*" });
        res.end(tile);
      });
      await new Promise<void>((resolve) => tiles.listen(0, "127.0.0.1", resolve));
      const tilePort = (tiles.address() as AddressInfo).port;
      smtp = await startTestSmtp();
      const t = await createTestApp("sqlite", {
        seed: true,
        now: () => new Date(Date.now() + offset),
        env: {
          SMTP_URL: smtp.url,
          // The outbox worker's round every second (5 s unless set), so the mails are waited for less.
          MAIL_POLL_SECONDS: "1",
          MAP_TILE_URL: `http://127.0.0.1:${tilePort}/{z}/{x}/{y}.png`,
          MAP_TILE_ATTRIBUTION: "Test tiles",
        },
      });
      return {
        ...t,
        async close() {
          await t.close();
          await smtp.close();
          await new Promise((resolve) => tiles.close(resolve));
        },
      };
    },
    { host: "127.0.0.1" },
  );
  beforeAll(() => {
    for (const worker of site.app.civic.workers) worker.start();
  });

  const failures: string[] = [];
  async function axe(page: Page, step: string) {
    const violations = await axeViolations(page);
    if (violations.length > 0) failures.push(formatViolations(`${step} (${page.url()})`, violations));
    expect(violations.map((v) => `${step}: ${v.id}`)).toEqual([]);
  }

  /** The minimum fill time passes, as if the person took a few seconds. */
  function letTimePass() {
    offset += MIN_FILL_MS + 1000;
  }

  async function coordinates(page: Page) {
    return {
      lat: Number(await page.inputValue("#lat")),
      lng: Number(await page.inputValue("#lng")),
    };
  }

  it("with the map (mouse), photos and an email: confirmation, email, public page without EXIF, status", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    const problems = watchPageProblems(page);

    await page.goto(`${site.base}/report`);
    await axe(page, "category step");
    await page.getByLabel("Pothole").check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(/\/report\?category=pothole/);
    await expect.poll(() => page.isVisible("#report-map")).toBe(true);
    expect(await page.innerText("#location-hint")).toContain("Put a pin on the map");
    await page.waitForSelector("#report-map .leaflet-tile-loaded");
    await axe(page, "report form");

    await page.click("#report-map", { position: { x: 220, y: 160 } });
    await expect.poll(() => page.textContent("#map-status")).toMatch(/Pin placed/);
    const { lat, lng } = await coordinates(page);
    expect(lat).toBeGreaterThan(50.975);
    expect(lng).toBeLessThan(-2.02);

    await page.getByLabel("In the road").check();
    await page.getByLabel("Roughly how wide is it, in centimetres?").fill("35");
    await page.getByLabel("Title").fill("Pothole by the bus stop");
    await page.getByLabel("Description").fill("About 35 cm across and deep.\n\nCars swerve round it.");
    const photo = await jpegWithGps(1200, 900);
    expect(hasGpsTag((await sharp(photo).metadata()).exif)).toBe(true);
    await page.setInputFiles("#photos", [{ name: "IMG_2041.jpg", mimeType: "image/jpeg", buffer: photo }]);
    await page.getByRole("textbox", { name: /Email address/ }).fill("resident.one@example.org");
    await page.getByLabel(/Your name/).fill("Resident One");
    await axe(page, "filled form");
    letTimePass();
    await page.getByRole("button", { name: "Send report" }).click();

    await page.waitForURL(/\/report\/sent\//);
    const reference = (await page.textContent(".reference"))?.trim() ?? "";
    expect(reference).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(await page.textContent("h1")).toContain("Thank you");
    await axe(page, "confirmation");

    // The confirmation email arrives at the SMTP server, with the reference and a link to the report.
    await smtp.waitFor(2, 20_000);
    const confirmation = smtp.received.find((m) => m.to.includes("resident.one@example.org"));
    expect(confirmation?.parsed.subject).toContain(reference);
    expect(confirmation?.parsed.text).toContain(`http://civic.test/reports/${reference}`);
    expect(confirmation?.parsed.html).toContain(reference);
    const forward = smtp.received.find((m) => m.to.includes("wrenvale-highways@example.org"));
    expect(forward?.parsed.text).toContain(reference);
    expect(forward?.parsed.text).not.toContain("resident.one@example.org");

    await page.getByRole("link", { name: "See your report" }).click();
    await page.waitForURL(new RegExp(`/reports/${reference}$`));
    expect(await page.textContent("h1")).toBe("Pothole by the bus stop");
    expect(await page.content()).not.toContain("Resident One");
    await expect.poll(() => page.isVisible(".report-view-map")).toBe(true);
    await axe(page, "public report page");
    const thumb = await page.getAttribute(".report-photos img", "src");
    const full = await page.getAttribute(".report-photos a", "href");
    expect(thumb).toBeTruthy();
    for (const url of [thumb, full]) {
      const res = await page.request.get(new URL(url as string, site.base).toString());
      expect(res.status()).toBe(200);
      const bytes = await res.body();
      const meta = await sharp(bytes).metadata();
      expect(meta.exif).toBeUndefined();
      expect(hasGpsTag(meta.exif)).toBe(false);
      expect(bytes.includes("SecretCam")).toBe(false);
      // The EXIF orientation was applied: the landscape photo is upright (portrait) now.
      expect((meta.height ?? 0) > (meta.width ?? 0)).toBe(true);
    }

    await page.goto(`${site.base}/status`);
    await axe(page, "status form");
    await page.getByLabel("Reference number").fill(reference.toLowerCase());
    await page.getByRole("button", { name: "Check status" }).click();
    await expect.poll(() => page.textContent("#status-result")).toContain(`${reference}: Open`);
    await axe(page, "status result");
    await page.getByLabel("Reference number").fill("ZZZZ-ZZZZ");
    await page.getByRole("button", { name: "Check status" }).click();
    await expect.poll(() => page.textContent(".error-summary")).toContain("We could not find a report");
    await axe(page, "status unknown");

    await page.goto(`${site.base}/reports`);
    await expect.poll(() => page.isVisible(".report-view-map")).toBe(true);
    expect(await page.textContent(".report-list")).toContain("Pothole by the bus stop");
    await axe(page, "reports list");

    // The Atom feeds are well-formed XML that a feed reader can parse, newest report first.
    const feed = await page.evaluate(async () => {
      const parse = async (url: string) => {
        const text = await (await fetch(url)).text();
        const doc = new DOMParser().parseFromString(text, "application/xml");
        return {
          error: doc.getElementsByTagName("parsererror").length,
          root: doc.documentElement.namespaceURI,
          titles: Array.from(doc.getElementsByTagName("entry")).map(
            (e) => e.getElementsByTagName("title")[0]?.textContent,
          ),
        };
      };
      return { all: await parse("/reports.atom"), potholes: await parse("/reports/pothole.atom") };
    });
    expect(feed.all).toMatchObject({ error: 0, root: "http://www.w3.org/2005/Atom" });
    expect(feed.all.titles[0]).toBe("Pothole by the bus stop");
    expect(feed.potholes.error).toBe(0);
    expect(feed.potholes.titles).toContain("Pothole by the bus stop");

    expect(problems).toEqual([]);
    await context.close();
  });

  it("with the keyboard only: pan, drop the pin, move it; anonymous", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await page.goto(`${site.base}/report?category=bus_shelter`);
    await expect.poll(() => page.isVisible("#report-map")).toBe(true);
    await page.focus("#report-map");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    // Let the pan animation finish before dropping the pin in the middle: Leaflet marks the map pane while it runs.
    await page.waitForSelector("#report-map .leaflet-map-pane:not(.leaflet-pan-anim)", { state: "attached" });
    await page.keyboard.press("Enter");
    await expect.poll(() => page.textContent("#map-status")).toMatch(/Pin placed/);
    const dropped = await coordinates(page);
    // The pin lands in the middle of the map, which moved east of the village centre.
    expect(dropped.lng).toBeGreaterThan(-2.0437 + 0.0001);

    await page.focus(".report-pin");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    const moved = await coordinates(page);
    expect(moved.lat).toBeGreaterThan(dropped.lat);
    expect(moved.lng).toBeCloseTo(dropped.lng, 4);
    await axe(page, "form with keyboard pin");

    await page.getByLabel("Title").fill("Shelter glass smashed");
    await page.getByLabel("Description").fill("Broken glass all over the seat.");
    letTimePass();
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/sent\//);
    const reference = (await page.textContent(".reference"))?.trim() ?? "";
    const row = await site.app.civic.database.db
      .selectFrom("reports")
      .selectAll()
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    expect(row.reporter_email).toBeNull();
    expect(row.latitude).toBeCloseTo(moved.lat, 5);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("with 'Use my location'", async () => {
    const context = await site.browser.browser.newContext({
      locale: "en-GB",
      geolocation: { latitude: 50.9878, longitude: -2.0425 },
      permissions: ["geolocation"],
    });
    await keepOnLoopback(context);
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=litter_bin`);
    await page.getByRole("button", { name: "Use my location" }).click();
    await expect.poll(() => page.textContent("#map-status")).toMatch(/Pin placed.*Church Lane/);
    expect(await coordinates(page)).toEqual({ lat: 50.9878, lng: -2.0425 });
    await context.close();
  });

  it("shows same-category reports near the pin before sending", async () => {
    const demo = await site.app.civic.database.db
      .selectFrom("reports")
      .select(["reference", "latitude", "longitude", "category_code", "title"])
      .where("status", "=", "open")
      .where("source", "=", "demo")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=${demo.category_code}`);
    await page.evaluate(
      ([lat, lng]) => {
        (document.getElementById("lat") as HTMLInputElement).value = String(lat);
        (document.getElementById("lng") as HTMLInputElement).value = String(lng);
      },
      [demo.latitude, demo.longitude],
    );
    // Re-render with the pin as the server keeps it: the script places the pin and asks for reports nearby.
    await page.getByRole("button", { name: "Check for reports nearby" }).click();
    await expect.poll(() => page.textContent("#nearby")).toContain("Already reported?");
    expect(await page.getAttribute(`#nearby a[href="/reports/${demo.reference}"]`, "href")).toBeTruthy();
    await axe(page, "nearby suggestions");
    await context.close();
  });

  it("without JavaScript: the gazetteer instead of the map", async () => {
    const context = await site.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${site.base}/report`);
    await page.getByLabel("Damaged road sign").check();
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await page.isVisible("#report-map")).toBe(false);
    // Where there is no map, the hint does not speak of one.
    expect((await page.innerText("#location-hint")).toLowerCase()).not.toContain("map");
    await page.selectOption("#place", "church-lane");
    await page.getByLabel("Describe the place").fill("By the fingerpost at the top");
    await page.getByLabel("Knocked down").check();
    await page.getByLabel("Title").fill("Fingerpost flattened");
    await page.getByLabel("Description").fill("The fingerpost is lying in the verge.");
    letTimePass();
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL(/\/report\/sent\//);
    const reference = (await page.textContent(".reference"))?.trim() ?? "";
    const row = await site.app.civic.database.db
      .selectFrom("reports")
      .selectAll()
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ place_id: "church-lane", latitude: 50.9878, longitude: -2.0425 });
    await page.goto(`${site.base}/reports/${reference}`);
    expect(await page.textContent(".report-facts")).toContain("Church Lane: By the fingerpost at the top");
    await context.close();
  });

  it("shows validation errors linked to their fields, keeping every value", async () => {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=pothole`);
    await page.getByLabel("Description").fill("Something <b>bold</b>");
    await page.getByRole("textbox", { name: /Email address/ }).fill("not-an-email");
    await page.getByLabel(/Your name/).fill("Kept Name");
    await page.setInputFiles("#photos", [
      { name: "verge.jpg", mimeType: "image/jpeg", buffer: await jpegWithGps(300, 200) },
    ]);
    letTimePass();
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForSelector(".error-summary");
    // The photo is kept, so it need not be chosen again.
    expect(await page.isChecked('input[name="kept_photo"]')).toBe(true);
    expect(await page.textContent(".kept-photos")).toContain("verge.jpg");
    expect(await page.title()).toMatch(/^Error: /);
    // The summary has focus, so screen readers announce it.
    expect(await page.evaluate(() => document.activeElement?.classList.contains("error-summary"))).toBe(true);
    const links = await page.$$eval(".error-summary a", (as) => as.map((a) => a.getAttribute("href")));
    expect(links).toEqual(
      expect.arrayContaining(["#place", "#title", "#description", "#email", "#attr-road_or_pavement-0"]),
    );
    expect(await page.inputValue("#description")).toBe("Something <b>bold</b>");
    expect(await page.inputValue("#email")).toBe("not-an-email");
    expect(await page.inputValue("#name")).toBe("Kept Name");
    await axe(page, "form with errors");
    await page.click('.error-summary a[href="#title"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("title");

    // Too many photos are caught before sending, so nothing typed is lost to a refused upload.
    const small = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#888" } })
      .jpeg()
      .toBuffer();
    const three = [1, 2, 3].map((n) => ({ name: `p${n}.jpg`, mimeType: "image/jpeg", buffer: small }));
    await page.setInputFiles("#photos", three);
    await page.getByRole("button", { name: "Send report" }).click();
    expect(await page.textContent("#photos-client-error")).toBe(
      "Choose at most 3 photos, counting the 1 you already added.",
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("photos");
    expect(await page.inputValue("#name")).toBe("Kept Name");
    await context.close();
  });

  it("still works when the map tiles cannot load", async () => {
    const context = await site.browser.newContext();
    // Tiles come through this site's tile proxy (src/maps): none arrives.
    await context.route(/\/tiles\/\d+\/\d+\/\d+\.png/, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${site.base}/report?category=graffiti`);
    await expect.poll(() => page.textContent("#map-status")).toMatch(/could not be loaded/);
    await page.click("#report-map", { position: { x: 150, y: 150 } });
    await expect.poll(() => page.textContent("#map-status")).toMatch(/Pin placed/);
    expect((await coordinates(page)).lat).toBeGreaterThan(50);
    await axe(page, "form without tiles");
    await context.close();
  });

  it("had no accessibility violations on any step", () => {
    expect(failures.join("\n\n")).toBe("");
  });
});
