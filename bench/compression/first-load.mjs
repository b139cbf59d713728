// Bytes on the wire for each page's first load (the HTML and the CSS and JS it links), as a browser that sends
// `Accept-Encoding: br, gzip` receives them: the bodies as sent, before any decoding. Starts the built server
// (`npm run build` first) of this checkout, and of another one with --before DIR (e.g. a checkout of an older
// commit, built, to compare), each on a fresh demo database, and prints one table.
//
//   node bench/compression/first-load.mjs [--before /tmp/base] [--encoding "br, gzip"]
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { get, pages, startServer } from "./server.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const here = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const before = option("--before", undefined);
const encoding = option("--encoding", "br, gzip");

/** The stylesheets and scripts a page links (what a first load fetches besides the HTML). */
function linkedAssets(html) {
  const found = new Set();
  for (const m of html.matchAll(/<link\b[^>]*\brel="(?:stylesheet|modulepreload)"[^>]*\bhref="([^"]+)"/g))
    found.add(m[1]);
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) found.add(m[1]);
  return [...found].filter((u) => u.startsWith("/"));
}

/** Per page: HTML and asset bytes, identity and as sent for `encoding`. */
async function measure(root) {
  const server = await startServer(root);
  try {
    const rows = new Map();
    for (const path of await pages(server.base)) {
      const plain = await get(server.base, path);
      const sent = await get(server.base, path, encoding);
      const assets = linkedAssets(plain.body.toString("utf8"));
      let assetsPlain = 0;
      let assetsSent = 0;
      for (const asset of assets) {
        assetsPlain += (await get(server.base, asset)).body.length;
        assetsSent += (await get(server.base, asset, encoding)).body.length;
      }
      rows.set(path, {
        status: sent.status,
        htmlPlain: plain.body.length,
        htmlSent: sent.body.length,
        htmlCoding: sent.headers["content-encoding"] ?? "identity",
        assets: assets.length,
        assetsPlain,
        assetsSent,
      });
    }
    // The other documents the issue names: the map script, the API description, Open311's default search, a feed.
    const manifest = JSON.parse((await get(server.base, "/assets/manifest.json")).body.toString("utf8"));
    const others = new Map();
    for (const path of [
      manifest["report-map.js"],
      "/openapi.yaml",
      "/api/v2/requests.json",
      "/api/v2/requests.xml",
      "/reports.atom",
      "/sitemap.xml",
      "/llms.txt",
    ]) {
      const plain = await get(server.base, path);
      const sent = await get(server.base, path, encoding);
      others.set(path.replace(/-[A-Z0-9]{8}\.js$/, ".js"), {
        plain: plain.body.length,
        sent: sent.body.length,
        coding: sent.headers["content-encoding"] ?? "identity",
      });
    }
    rows.others = others;
    return rows;
  } finally {
    await server.stop();
  }
}

const kb = (n) => (n / 1024).toFixed(1);
const after = await measure(here);
const earlier = before ? await measure(resolve(before)) : undefined;

const header = earlier
  ? ["page", "identity KB (HTML+assets)", "before KB", "after KB", "after: HTML", "saved"]
  : ["page", "identity KB (HTML+assets)", "sent KB", "HTML KB sent", "HTML coding", "assets"];
const lines = [header];
let totals = { plain: 0, before: 0, after: 0 };
for (const [path, row] of after) {
  const plain = row.htmlPlain + row.assetsPlain;
  const sent = row.htmlSent + row.assetsSent;
  totals.plain += plain;
  totals.after += sent;
  if (earlier) {
    const old = earlier.get(path);
    const was = old ? old.htmlSent + old.assetsSent : NaN;
    totals.before += was;
    lines.push([
      path,
      kb(plain),
      kb(was),
      kb(sent),
      `${kb(row.htmlSent)} (${row.htmlCoding})`,
      `${Math.round((1 - sent / was) * 100)} %`,
    ]);
  } else {
    lines.push([path, kb(plain), kb(sent), kb(row.htmlSent), row.htmlCoding, String(row.assets)]);
  }
}
lines.push(
  earlier
    ? [
        "total",
        kb(totals.plain),
        kb(totals.before),
        kb(totals.after),
        "",
        `${Math.round((1 - totals.after / totals.before) * 100)} %`,
      ]
    : ["total", kb(totals.plain), kb(totals.after), "", "", ""],
);
console.log(`Accept-Encoding: ${encoding}; bodies as received (before decoding), in KB (1,024 bytes)\n`);
console.log(`| ${lines[0].join(" | ")} |`);
console.log(`| ${lines[0].map(() => "---").join(" | ")} |`);
for (const line of lines.slice(1)) console.log(`| ${line.join(" | ")} |`);

console.log(`\n| resource | identity KB | ${earlier ? "before KB | after KB" : "sent KB"} | coding |`);
console.log(`| --- | --- | ${earlier ? "--- | ---" : "---"} | --- |`);
for (const [path, row] of after.others) {
  const was = earlier?.others.get(path);
  const cells = earlier ? [kb(was?.sent ?? NaN), kb(row.sent)] : [kb(row.sent)];
  console.log(`| ${path} | ${kb(row.plain)} | ${cells.join(" | ")} | ${row.coding} |`);
}
