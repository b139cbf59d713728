import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { projectRoot } from "../../src/core/web/paths.js";

/**
 * Bundles `source` (TypeScript importing from src/ as "./src/….ts") next to node_modules and runs it in a process of
 * its own; resolves with its exit code (null if it was still running after `timeoutMs` and was killed) and output.
 * With `stdoutFile`, its stdout is that file (as under a process manager writing a log file) and `output` is stderr.
 */
export async function runScript(
  source: string,
  timeoutMs = 20_000,
  stdoutFile?: string,
): Promise<{ code: number | null; output: string }> {
  const outDir = join(projectRoot, "node_modules", `.test-script-${randomUUID()}`);
  const outfile = join(outDir, "script.mjs");
  await build({
    stdin: { contents: source, resolveDir: projectRoot, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile,
    logLevel: "silent",
  });
  try {
    return await new Promise((resolve) => {
      const fd = stdoutFile === undefined ? undefined : openSync(stdoutFile, "a");
      const child = spawn(process.execPath, [outfile], { cwd: projectRoot, stdio: ["ignore", fd ?? "pipe", "pipe"] });
      if (fd !== undefined) closeSync(fd);
      let output = "";
      child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
      child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
