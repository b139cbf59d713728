// Shared by the benchmarks: bundles a benchmark's bench.ts (TypeScript importing the app's sources) with esbuild
// into a temporary folder under node_modules, runs it from the project root, and removes the bundle afterwards.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * Runs `<benchDir>/bench.ts`; its own arguments pass through in process.argv. Extra entries (e.g. "server") are
 * bundled beside it and, when bench.ts exports `main`, their bundle paths are passed to it.
 */
export async function runBench(benchDir, extraEntries = []) {
  const root = join(benchDir, "..", "..");
  // Inside node_modules so the bundles resolve the project's packages.
  const out = mkdtempSync(join(root, "node_modules", ".bench-"));
  const names = ["bench", ...extraEntries];
  try {
    await build({
      entryPoints: Object.fromEntries(names.map((n) => [n, join(benchDir, `${n}.ts`)])),
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
    const bench = await import(pathToFileURL(join(out, "bench.mjs")).href);
    if (typeof bench.main === "function") await bench.main(...extraEntries.map((n) => join(out, `${n}.mjs`)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
