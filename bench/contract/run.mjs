// Bundles bench.ts (TypeScript, importing the app's sources and the contract model) with esbuild and runs it:
//   node bench/contract/run.mjs [--db sqlite|postgres|both] [--seed 12345] [--runs 500] [--seconds 300]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)));
