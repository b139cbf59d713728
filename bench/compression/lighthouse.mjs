// Lighthouse's "Enable text compression" audit (uses-text-compression) on every public page, against the built
// server of this checkout on a fresh demo database, in Debian's Chromium. Lighthouse is not a dependency of the
// project (it is large and only needed here): install it outside the repository, e.g.
//   npm install --prefix /tmp/lh lighthouse
//   node bench/compression/lighthouse.mjs --lighthouse /tmp/lh/node_modules/.bin/lighthouse
// Each page has 120 s; the whole run stops after 15 minutes. Exit code 1 when any page fails the audit.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pages, startServer } from "./server.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const root = resolve(option("--root", resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")));
const lighthouse = option("--lighthouse", process.env.LIGHTHOUSE_BIN ?? "lighthouse");
const chrome = process.env.CHROME_PATH ?? "/usr/bin/chromium";

const overall = setTimeout(() => {
  console.error("stopped after 15 minutes");
  process.exit(2);
}, 15 * 60_000);
overall.unref();

const run = (file, argv) =>
  new Promise((ok, fail) =>
    execFile(file, argv, { timeout: 120_000, env: { ...process.env, CHROME_PATH: chrome } }, (error, _out, err) =>
      error ? fail(new Error(`${error.message}\n${err}`)) : ok(),
    ),
  );

const server = await startServer(root);
const out = mkdtempSync(join(tmpdir(), "civic-lighthouse-"));
let failed = 0;
try {
  console.log(`uses-text-compression, ${root}\n`);
  console.log("| page | score | savings | uncompressed resources |");
  console.log("| --- | --- | --- | --- |");
  for (const path of await pages(server.base)) {
    const report = join(out, "report.json");
    const runAudit = async () => {
      await run(lighthouse, [
        `${server.base}${path}`,
        "--only-audits=uses-text-compression",
        "--chrome-flags=--headless --no-sandbox --disable-gpu --disable-background-networking",
        "--output=json",
        `--output-path=${report}`,
        "--quiet",
      ]);
      const result = JSON.parse(readFileSync(report, "utf8"));
      return { ...result.audits["uses-text-compression"], runtimeError: result.runtimeError?.code };
    };
    // A run that could not score the page (score null: Chromium did not paint in time on a busy machine) is
    // tried once more.
    let audit = await runAudit();
    if (audit.score === null) audit = await runAudit();
    const items = (audit.details?.items ?? []).map((i) => new URL(i.url).pathname);
    if (audit.score !== 1) failed++;
    const note = audit.score === null ? ` (${audit.runtimeError ?? audit.errorMessage ?? "not scored"})` : "";
    console.log(`| ${path} | ${audit.score}${note} | ${audit.displayValue ?? ""} | ${items.join(", ")} |`);
  }
} finally {
  await server.stop();
  rmSync(out, { recursive: true, force: true });
}
console.log(failed ? `\n${failed} page(s) fail the audit` : "\nevery page passes");
process.exit(failed ? 1 : 0);
