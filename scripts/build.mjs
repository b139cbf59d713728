// Builds the server and CLI (dist/*.js) and the browser assets (dist/public/assets) with content-hashed names.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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

const result = await build({
  ...common,
  entryPoints: [...clientEntries, ...styleEntries],
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
});

const manifest = {};
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  if (!meta.entryPoint || out.endsWith(".map")) continue;
  const logical = basename(meta.entryPoint).replace(/\.tsx?$/, ".js");
  manifest[logical] = `/${relative(join(dist, "public"), join(root, out)).split("\\").join("/")}`;
}
writeFileSync(join(assetsDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
