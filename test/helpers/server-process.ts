import { type ChildProcess, spawn } from "node:child_process";
import { projectRoot } from "../../src/core/web/paths.js";

/** A built server process (node dist/server.js) started by a test. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node dist/server.js` with exactly `env` (plus PATH); resolves once it prints its address. */
export function startServerProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["dist/server.js"], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not start:\n${out}`));
    }, timeoutMs);
    const collect = (c: Buffer) => {
      out += c.toString();
      const url = /Open (http:\/\/\S+) in your browser/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, child, output: () => out, exited });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${out}`));
    });
  });
}
