// Builds the server and CLI (dist/*.js) and the browser assets (dist/public/assets) with content-hashed names.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { build } from "esbuild";
import sharp from "sharp";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const assetsDir = join(dist, "public", "assets");
rmSync(dist, { recursive: true, force: true });
mkdirSync(assetsDir, { recursive: true });

const common = {
  bundle: true,
  logLevel: "warning",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
};

await build({
  ...common,
  entryPoints: { server: join(root, "src/server.ts"), cli: join(root, "src/cli.ts") },
  outdir: dist,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
});

const clientDir = join(root, "src/client");
const clientEntries = readdirSync(clientDir)
  .filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith(".test.ts") && !f.startsWith("_"))
  .map((f) => join(clientDir, f));
const styleEntries = [join(root, "src/core/web/styles/site.css"), join(root, "node_modules/leaflet/dist/leaflet.css")];

const clientOptions = {
  ...common,
  outdir: assetsDir,
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  platform: "browser",
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  minify: true,
  sourcemap: true,
  metafile: true,
  loader: { ".png": "file", ".svg": "file", ".woff2": "file" },
};
// The maps' scripts share Leaflet (and the reports maps their markers): built together with code splitting, the
// shared code is a chunk of its own that each map page loads once and the next one finds cached, and each page loads
// only its own map's code. The other scripts (every page's enhance.js) stay single files: one request each.
// Leaflet's ES module build, not its UMD file (package.json "main"): the browser runs no CommonJS wrapper around
// it, and esbuild can leave out what no map here uses (GeoJSON, polylines and polygons, image and video overlays,
// the layers control, WMS tiles) once told that making a class (`X.extend({…})`) does nothing else, and without the
// statements that hang GeoJSON conversions and those classes onto the ones the maps use. The /reports page's own
// scripts (Leaflet, supercluster and reports-map.js) stay under 40 KB compressed (issue 35).
const isMap = (path) => /map\.ts$/.test(path);
const leafletEsm = join(root, "node_modules/leaflet/dist/leaflet-src.esm.js");
const UNUSED_LEAFLET = [
  /^(?:Polyline|Polygon|LayerGroup)\.include\(\{[\s\S]*?^\}\);$/gm,
  /^(?:Marker|Circle|CircleMarker)\.include\(PointToGeoJSON\);$/gm,
  /^GeoJSON\.\w+ = \w+;$/gm,
  /^(?:Control\.Layers = Layers|TileLayer\.WMS = TileLayerWMS|Polyline\._flat = _flat);$/gm,
];
const leafletTrimmed = {
  name: "leaflet-trimmed",
  setup(b) {
    b.onLoad({ filter: /leaflet-src\.esm\.js$/ }, () => {
      let code = readFileSync(leafletEsm, "utf8").replace(
        /^var (\w+) = (\w+)\.extend\(/gm,
        "var $1 = /* @__PURE__ */ $2.extend(",
      );
      for (const statement of UNUSED_LEAFLET) code = code.replace(statement, "");
      return { contents: code, loader: "js" };
    });
  },
};
const [maps, others] = await Promise.all([
  build({
    ...clientOptions,
    entryPoints: clientEntries.filter(isMap),
    splitting: true,
    chunkNames: "chunk-[hash]",
    alias: { leaflet: leafletEsm },
    plugins: [leafletTrimmed],
  }),
  build({ ...clientOptions, entryPoints: [...clientEntries.filter((f) => !isMap(f)), ...styleEntries] }),
]);
const result = { metafile: { outputs: { ...others.metafile.outputs, ...maps.metafile.outputs } } };

const manifest = {};
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  if (!meta.entryPoint || out.endsWith(".map")) continue;
  const logical = basename(meta.entryPoint).replace(/\.tsx?$/, ".js");
  manifest[logical] = `/${relative(join(dist, "public"), join(root, out)).split("\\").join("/")}`;
}
writeFileSync(join(assetsDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

// The service worker: served from the root (/sw.js) so its scope is the whole site. The list of assets to keep on
// the device and the cache version (a hash of that list, so every asset change installs a new worker) are baked in.
const precache = Object.keys(result.metafile.outputs)
  .filter((out) => !out.endsWith(".map"))
  .map((out) => `/${relative(join(dist, "public"), join(root, out)).split("\\").join("/")}`);
const icons = ["icon-192.png", "icon-512.png", "icon-maskable-512.png"].map((name) => `/icons/${name}`);
const version = createHash("sha256")
  .update(JSON.stringify([...precache, ...icons].sort()))
  .digest("hex")
  .slice(0, 12);
await build({
  ...common,
  entryPoints: [join(root, "src/client/sw/service-worker.ts")],
  outfile: join(dist, "public", "sw.js"),
  platform: "browser",
  format: "iife",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  minify: true,
  define: { __SW_VERSION__: JSON.stringify(version), __PRECACHE__: JSON.stringify([...precache, ...icons]) },
});

// App icons, drawn from one SVG: a white map pin on the brand green. The maskable one keeps the pin inside the
// central safe zone (80%) and fills the whole square, as launchers crop it to their own shape.
const pin = (scale) =>
  `<g transform="translate(256 256) scale(${scale}) translate(-256 -256)" fill="#ffffff">` +
  `<path d="M256 64c-79 0-140 61-140 138 0 104 140 246 140 246s140-142 140-246c0-77-61-138-140-138z"/>` +
  `<circle cx="256" cy="204" r="54" fill="#1d5b3a"/></g>`;
const iconSvg = (maskable) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">` +
      (maskable
        ? `<rect width="512" height="512" fill="#1d5b3a"/>${pin(0.7)}`
        : `<rect width="512" height="512" rx="96" fill="#1d5b3a"/>${pin(0.9)}`) +
      `</svg>`,
  );
const iconsDir = join(dist, "public", "icons");
mkdirSync(iconsDir, { recursive: true });
await sharp(iconSvg(false)).resize(192, 192).png().toFile(join(iconsDir, "icon-192.png"));
await sharp(iconSvg(false)).png().toFile(join(iconsDir, "icon-512.png"));
await sharp(iconSvg(true)).png().toFile(join(iconsDir, "icon-maskable-512.png"));

// Every text asset is also written compressed, beside it (`<file>.br`, `<file>.gz`), at the densest settings: the
// app serves these to clients that accept them (@fastify/static's preCompressed mode, see src/app.ts) instead of
// compressing per request. Images are compressed already and source maps are read by developer tools only. The list
// of extensions is PRECOMPRESSED_EXTENSIONS in src/core/web/assets.ts.
const PRECOMPRESSED = [".js", ".css", ".json", ".webmanifest", ".svg", ".txt", ".xml", ".html"];
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
await Promise.all(
  readdirSync(assetsDir)
    .filter((name) => PRECOMPRESSED.some((ext) => name.endsWith(ext)))
    .map(async (name) => {
      const path = join(assetsDir, name);
      const bytes = readFileSync(path);
      const [br, gzipped] = await Promise.all([
        brotli(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        }),
        gz(bytes, { level: 9 }),
      ]);
      writeFileSync(`${path}.br`, br);
      writeFileSync(`${path}.gz`, gzipped);
    }),
);
