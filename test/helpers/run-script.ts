import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { projectRoot } from "../../src/core/web/paths.js";

/**
 * Bundles `source` (TypeScript importing from src/ as "./src/….ts") next to node_modules and runs it in a process of
 * its own; resolves with its exit code (null if it was still running after `timeoutMs` and was killed) and output.
 */
export async function runScript(source: string, timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
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
      const child = spawn(process.execPath, [outfile], { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c.toString()));
      child.stderr.on("data", (c: Buffer) => (output += c.toString()));
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
