#!/usr/bin/env node
// The checks `npm test` runs before the tests, in two lanes at once: the type check on one core, and the lint
// (ESLint, Prettier, the layer rules) then the build on the other. Each is single-threaded, and the test machines
// have two cores, so side by side they take the time of the longer lane instead of the sum of both (about half a
// minute less). Each lane's output is printed whole when it ends, so the two never interleave; the exit status is
// the first failure's, and a failing lane does not stop the other (one run names every problem).
import { spawn } from "node:child_process";

const lanes = [["typecheck"], ["lint", "build"]];

function run(script) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
    });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    const started = Date.now();
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? "passed" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> npm run ${script}: ${status} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

async function lane(scripts) {
  for (const script of scripts) {
    const code = await run(script);
    if (code !== 0) return code;
  }
  return 0;
}

const codes = await Promise.all(lanes.map(lane));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
