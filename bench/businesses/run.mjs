// Bundles the benchmark (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass through:
//   node bench/businesses/run.mjs [--businesses 10000] [--seconds 5] [--connections 16] [--searches 2000]
//     [--rounds 3] [--modes bare,app,app-logged] [--log-file PATH] [--logging-rounds 15]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)), ["server", "logging-cost"]);
