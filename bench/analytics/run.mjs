// Bundles the benchmark (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass through:
//   node bench/analytics/run.mjs [--rounds 6] [--seconds 5] [--connections 8] [--path /]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)), ["server"]);
