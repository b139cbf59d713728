// Bundles bench.ts (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass through:
//   node bench/open311/run.mjs [--db sqlite|postgres|both] [--sizes 100000,1000000] [--seconds 8] [--concurrency 8]
import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const out = mkdtempSync(join(root, "node_modules", ".bench-"));
const file = join(out, "bench.mjs");
try {
  await build({
    entryPoints: [join(here, "bench.ts")],
    outfile: file,
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
  await import(pathToFileURL(file).href);
} finally {
  rmSync(out, { recursive: true, force: true });
}
