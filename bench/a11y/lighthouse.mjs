// Lighthouse's accessibility category, mobile form factor, on every public page (the site's page list from
// /llms.txt, plus one report, business, project and idea page) and on the signed-in and staff pages (a session
// cookie sent with --extra-headers), against the built server of this checkout (`npm run build` first) on a fresh
// demo village, in Debian's Chromium. Lighthouse is not a dependency of the project (it is large and only needed
// here): install it outside the repository, e.g.
//   npm install --prefix /tmp/lh lighthouse
//   node bench/a11y/lighthouse.mjs --lighthouse /tmp/lh/node_modules/.bin/lighthouse
// Options: --root DIR (another built checkout), --only /a,/b (those paths alone; /reports/* for the report page), --minutes N (whole run, default 15),
// --categories accessibility,performance (Lighthouse's categories to score, default accessibility; each gets a column
// and every one must be 100).
// Lighthouse drives one Chromium that this script starts (--port) and stops, so nothing is left running when a page
// or the whole run times out. Each page has 120 s (a page Chromium could not score is tried once more). Prints a
// Markdown table of each page's score and failing audits; exit code 1 when a page scores below 100, 2 when the run
// ran out of time.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, publicPages, startDemoServer } from "../../scripts/demo-server.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const root = resolve(option("--root", resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")));
const lighthouse = option("--lighthouse", process.env.LIGHTHOUSE_BIN ?? "lighthouse");
const only = option("--only", "")
  .split(",")
  .filter((p) => p.startsWith("/"));
const minutes = Number(option("--minutes", "15"));
const categories = option("--categories", "accessibility")
  .split(",")
  .map((c) => c.trim())
  .filter(Boolean);
const chrome = process.env.CHROME_PATH ?? "/usr/bin/chromium";

let stopped = false;
let current; // the Lighthouse process at work
const overall = setTimeout(() => {
  console.error(`stopped after ${minutes} minutes`);
  stopped = true;
  current?.kill("SIGTERM");
}, minutes * 60_000);
overall.unref();

/** Headless Chromium with its DevTools port open, in a profile of its own; Lighthouse opens a tab per page. */
async function startChromium() {
  const port = await freePort();
  const profile = mkdtempSync(join(tmpdir(), "civic-a11y-chromium-"));
  const child = spawn(
    chrome,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${chrome} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    async stop() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const run = (file, argv) =>
  new Promise((ok, fail) => {
    current = execFile(
      file,
      argv,
      { timeout: 120_000, env: { ...process.env, CHROME_PATH: chrome } },
      (error, _o, err) => (error ? fail(new Error(`${error.message}\n${err}`)) : ok()),
    );
  });

/** The first link on `page` whose path matches `pattern` (a report, a business…), as the demo village has them. */
async function firstLink(base, page, pattern, cookie) {
  const html = await (await fetch(`${base}${page}`, { headers: cookie ? { cookie } : {} })).text();
  for (const [, href] of html.matchAll(/href="([^"?#]+)"/g)) if (pattern.test(href)) return href;
  return null;
}

const server = await startDemoServer(root);
const browser = await startChromium();
const out = mkdtempSync(join(tmpdir(), "civic-a11y-"));
const rows = [];
try {
  const { base } = server;
  const resident = await server.signIn("resident@example.org");
  const staff = await server.signIn("a11y-admin@example.org", "admin");
  const detail = [
    await firstLink(base, "/reports", /^\/reports\/[A-Z]+-\d+$/),
    await firstLink(base, "/businesses", /^\/businesses\/[a-z0-9-]+$/),
    await firstLink(base, "/projects", /^\/projects\/[a-z0-9-]+$/),
    await firstLink(base, "/ideas", /^\/ideas\/\d+$/),
  ].filter(Boolean);
  const staffReport = await firstLink(base, "/admin/reports", /^\/admin\/reports\/[A-Z]+-\d+$/, staff);
  /** [path, who, cookie] */
  let targets = [
    ...[...(await publicPages(base)), ...detail].map((p) => [p, "anyone", undefined]),
    ...["/account", "/account/reports", "/account/data"].map((p) => [p, "resident", resident]),
    ...[
      "/admin",
      "/admin/reports",
      ...(staffReport ? [staffReport] : []),
      "/admin/moderation",
      "/admin/ideas",
      "/admin/stats",
      "/admin/projects",
      "/admin/newsletter",
      "/admin/categories",
      "/admin/staff",
      "/admin/log",
    ].map((p) => [p, "admin", staff]),
  ];
  // "/reports/*": the one report page the run scores, whatever its reference.
  const chosen = (p) => only.some((o) => (o.endsWith("*") ? p.startsWith(o.slice(0, -1)) : o === p));
  if (only.length) targets = targets.filter(([p]) => chosen(p));

  console.log(`Lighthouse ${categories.join(", ")} (mobile), ${root}, ${targets.length} pages\n`);
  console.log(`| page | as | ${categories.join(" | ")} | failing audits |`);
  console.log(`| --- | --- | ${categories.map(() => "---").join(" | ")} | --- |`);
  for (const [path, who, cookie] of targets) {
    if (stopped) break;
    const report = join(out, "report.json");
    const audit = async () => {
      await run(lighthouse, [
        `${base}${path}`,
        `--only-categories=${categories.join(",")}`,
        "--form-factor=mobile",
        `--port=${browser.port}`,
        ...(cookie ? [`--extra-headers=${JSON.stringify({ Cookie: cookie })}`] : []),
        "--output=json",
        `--output-path=${report}`,
        "--quiet",
      ]);
      const result = JSON.parse(readFileSync(report, "utf8"));
      const scores = categories.map((c) => result.categories[c]?.score ?? null);
      const failing = categories
        .flatMap((c) => result.categories[c]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .map((ref) => result.audits[ref.id])
        .filter((a) => a.score !== null && a.score < 1)
        .map((a) => {
          // The audit, how many elements fail it and the last part of their selectors (the distinct ones).
          const items = a.details?.items ?? [];
          const names = [...new Set(items.map((i) => i.node?.selector?.split(" > ").pop()).filter(Boolean))];
          const which = names.length ? `: ${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}` : "";
          return `${a.id}${items.length ? ` (${items.length} element${items.length === 1 ? "" : "s"}${which})` : ""}`;
        });
      // Performance's own figures (milliseconds, and the layout shift), for the note beside the score.
      if (categories.includes("performance")) {
        const figure = (id) => result.audits[id]?.numericValue;
        const ms = (id) => (figure(id) === undefined ? "?" : `${Math.round(figure(id))} ms`);
        failing.push(
          `FCP ${ms("first-contentful-paint")}, LCP ${ms("largest-contentful-paint")}, TBT ${ms("total-blocking-time")}, ` +
            `CLS ${figure("cumulative-layout-shift")?.toFixed(3) ?? "?"}, ` +
            `${Math.round((figure("total-byte-weight") ?? 0) / 1024)} KiB`,
        );
      }
      // A page that redirected (say, to /sign-in when the cookie did not count) says where it ended.
      const ended = new URL(result.finalDisplayedUrl ?? `${base}${path}`).pathname;
      if (ended !== path) failing.unshift(`ended at ${ended}`);
      return {
        scores: scores.map((score) => (ended === path ? score : 0)),
        failing,
        error: result.runtimeError?.code,
      };
    };
    let scored;
    try {
      scored = await audit();
      // Not scored (Chromium did not paint in time on a busy machine): once more.
      if (scored.scores.includes(null)) scored = await audit();
    } catch (error) {
      scored = { scores: categories.map(() => null), failing: [], error: String(error.message).split("\n")[0] };
    }
    const shown = scored.scores.map((s) => (s === null ? `not scored (${scored.error ?? "?"})` : Math.round(s * 100)));
    rows.push({ path, ok: scored.scores.every((s) => s === 1) });
    console.log(`| ${path} | ${who} | ${shown.join(" | ")} | ${scored.failing.join(", ")} |`);
  }
} finally {
  await browser.stop();
  await server.stop();
  rmSync(out, { recursive: true, force: true });
}
const below = rows.filter((r) => !r.ok);
console.log(
  below.length
    ? `\n${below.length} of ${rows.length} page(s) below 100: ${below.map((r) => r.path).join(", ")}`
    : `\nevery page (${rows.length}) scores 100`,
);
process.exit(stopped ? 2 : below.length ? 1 : 0);
