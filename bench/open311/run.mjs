// Bundles bench.ts (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass through:
//   node bench/open311/run.mjs [--db sqlite|postgres|both] [--sizes 100000,1000000] [--seconds 8] [--concurrency 8]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)));
