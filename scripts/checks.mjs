#!/usr/bin/env node
// The checks `npm test` runs, and with `--with-tests` the tests beside them.
//
// The build (a second) comes first: the slow tier serves dist/. Then the type check and the lint (ESLint, Prettier,
// the layer rules) each run in a lane of their own, each single-threaded, and with `--with-tests` `vitest run` runs
// beside them: the tests leave much of the two cores idle (their browser and child-process tests wait), so the checks
// fit into that time instead of coming before it (about 45 s less). The checks' output is printed whole when each
// ends, so it never interleaves with the tests' (which stream); the exit status is the first failure's, and a failing
// lane does not stop the others (one run names every problem).
import { spawn } from "node:child_process";

const withTests = process.argv.includes("--with-tests");

function run(command, args, { stream = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: stream ? "inherit" : ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
    });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    const started = Date.now();
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? "passed" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> ${[command, ...args].join(" ")}: ${status} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

const npm = (script) => run("npm", ["run", "--silent", script]);

const build = await npm("build");
const lanes = [npm("typecheck"), npm("lint")];
if (withTests) lanes.push(build === 0 ? run("npx", ["vitest", "run"], { stream: true }) : Promise.resolve(1));
const codes = [build, ...(await Promise.all(lanes))];
process.exitCode = codes.find((code) => code !== 0) ?? 0;
