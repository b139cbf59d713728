// The screenshots of README "Screenshots" (docs/screenshots/): the built server of this checkout (`npm run build`
// first) on a fresh demo village, photographed in Debian's Chromium (CHROME_PATH, default /usr/bin/chromium) with
// playwright-core, each picture re-encoded as a palette PNG with sharp so it stays small (the script fails when one
// is over 150 KB).
//   node scripts/screenshots.mjs [--out DIR]
// The map tiles come from the tile server (MAP_TILE_URL); on a machine that cannot reach it the maps stay grey.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import sharp from "sharp";
import { startDemoServer } from "./demo-server.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = resolve(outAt >= 0 && args[outAt + 1] ? args[outAt + 1] : join(root, "docs", "screenshots"));
const MAX_BYTES = 150 * 1024;

const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };

/** The first report of the demo village that shows a photo, else the newest report. */
async function reportWithPhoto(base) {
  const list = await (await fetch(`${base}/reports`)).text();
  const pages = [...new Set([...list.matchAll(/href="(\/reports\/[A-Z]+-\d+)"/g)].map((m) => m[1]))];
  for (const path of pages) {
    if ((await (await fetch(`${base}${path}`)).text()).includes('src="/photos/')) return path;
  }
  return pages[0] ?? "/reports";
}

mkdirSync(out, { recursive: true });
const server = await startDemoServer(root);
const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? "/usr/bin/chromium" });
try {
  const staff = await server.signIn("screenshots@example.org", "admin");
  const shots = [
    { file: "home-phone.png", path: "/", viewport: phone },
    { file: "reports-desktop.png", path: "/reports", viewport: desktop },
    { file: "report-phone.png", path: await reportWithPhoto(server.base), viewport: phone },
    { file: "staff-inbox-desktop.png", path: "/admin/reports", viewport: desktop, cookie: staff },
  ];
  for (const shot of shots) {
    const context = await browser.newContext({ viewport: shot.viewport, deviceScaleFactor: 1 });
    if (shot.cookie) {
      const at = shot.cookie.indexOf("=");
      await context.addCookies([
        { name: shot.cookie.slice(0, at), value: shot.cookie.slice(at + 1), url: server.base },
      ]);
    }
    const page = await context.newPage();
    // Nothing from other hosts waits the page out (the tiles, when the tile server cannot be reached).
    await page.goto(`${server.base}${shot.path}`, { waitUntil: "load", timeout: 30_000 });
    await page.waitForTimeout(500);
    const png = await page.screenshot({ fullPage: false });
    await context.close();
    const small = await sharp(png).png({ palette: true, quality: 80, colours: 128, compressionLevel: 9 }).toBuffer();
    if (small.length > MAX_BYTES) throw new Error(`${shot.file}: ${small.length} bytes, more than ${MAX_BYTES}`);
    writeFileSync(join(out, shot.file), small);
    console.log(`${shot.file}: ${shot.path} at ${shot.viewport.width} px, ${(small.length / 1024).toFixed(1)} KB`);
  }
} finally {
  await browser.close();
  await server.stop();
}
