// Bundles bench.ts (TypeScript, importing the app's sources and the fuzz model) with esbuild and runs it:
//   node bench/fuzz/run.mjs [--db sqlite|postgres|both] [--seed 12345] [--runs 20000]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)));
