// Bundles the benchmark (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass through:
//   node bench/businesses/run.mjs [--businesses 10000] [--seconds 5] [--connections 16] [--searches 2000]
import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
// Inside node_modules so the bundles resolve the project's packages.
const out = mkdtempSync(join(root, "node_modules", ".bench-businesses-"));
try {
  await build({
    entryPoints: { bench: join(here, "bench.ts"), server: join(here, "server.ts") },
    outdir: out,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "warning",
  });
  process.chdir(root);
  const { main } = await import(pathToFileURL(join(out, "bench.mjs")).href);
  await main(join(out, "server.mjs"));
} finally {
  rmSync(out, { recursive: true, force: true });
}
