import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { projectRoot } from "../../src/core/web/paths.js";
import { startServer } from "../../src/server.js";
import { createTestDatabase, describeEachDb, testConfig } from "../helpers/app.js";
import { until } from "../helpers/wait.js";

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describeEachDb("graceful shutdown", (dialect) => {
  it("finishes in-flight requests, refuses new ones, stops workers and closes the database", async () => {
    const t = await createTestDatabase(dialect);
    const config = testConfig(t.dataDir, { PORT: "0", ...(t.url ? { DATABASE_URL: t.url } : {}) });
    const app = await buildApp(config, { logger: false, database: t.database });
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      app.get("/slow", async () => {
        resolve();
        await new Promise<void>((r) => {
          release = r;
        });
        return { done: true };
      });
    });
    const events: string[] = [];
    app.civic.workers.push({
      name: "test-worker",
      start: () => events.push("started"),
      stop: async () => {
        events.push("stopped");
      },
    });
    const server = await startServer(app, config);
    expect(events).toEqual(["started"]);
    try {
      const inFlight = get(`${server.url}/slow`);
      await started;
      const closing = server.close();
      // Once the listener is closed (not after a while), a new connection is refused.
      await until(() => !app.server.listening);
      await expect(get(`${server.url}/healthz`)).rejects.toThrow();
      release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ done: true });
      await closing;
      expect(events).toEqual(["started", "stopped"]);
      expect(await t.database.ping()).toBe(false);
    } finally {
      release();
      await server.close();
      await t.cleanup();
    }
  });
});

interface Run {
  code: number | null;
  out: string;
}

function runNode(
  args: string[],
  env: Record<string, string>,
  onOutput?: (text: string, kill: () => void) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const collect = (c: Buffer) => {
      out += c.toString();
      onOutput?.(out, () => child.kill("SIGTERM"));
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("the built server process (dist/server.js)", () => {
  it("refuses a bad PORT with a clear message and exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "civic-proc-"));
    try {
      const run = await runNode(["dist/server.js"], { DATA_DIR: dir, PORT: "http", LOG_LEVEL: "silent" });
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/PORT="http" must be a whole number from 0 to 65535/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachDb("the built server process on its database", (dialect) => {
  it("starts with the demo village, serves pages, and stops cleanly on SIGTERM", async () => {
    const db = await createTestDatabase(dialect, { migrate: false });
    await db.database.close();
    const dir = db.dataDir;
    const env: Record<string, string> = { DATA_DIR: dir, PORT: "0", LOG_LEVEL: "info" };
    if (db.url) env.DATABASE_URL = db.url;
    try {
      let checked: Promise<void> | undefined;
      const run = await runNode(["dist/server.js"], env, (out, kill) => {
        const url = /Open (http:\/\/\S+) in your browser/.exec(out)?.[1];
        if (url && !checked) {
          checked = (async () => {
            const health = await get(`${url}/healthz`);
            expect(health.status).toBe(200);
            const home = await get(`${url}/`);
            expect(home.body).toContain("Community Platform");
            kill();
          })();
        }
      });
      await checked;
      expect(run.out).toMatch(/loaded the demo village/);
      expect(run.out).toMatch(/"msg":"stopped"/);
      expect(run.code).toBe(0);
    } finally {
      await db.cleanup();
    }
  });
});
