// Bundles the scale benchmark (TypeScript, importing the app's sources) with esbuild and runs it. Arguments pass
// through; see README.md:
//   node bench/scale/run.mjs [--db sqlite|postgres|both] [--size 1000000] [--seconds 5] [--only open311,pages,...]
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "../run-bench.mjs";

await runBench(dirname(fileURLToPath(import.meta.url)), ["server"]);
