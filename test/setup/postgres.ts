import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { testDialects } from "../helpers/dialects.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the throwaway PostgreSQL cluster, or "" when the run does not use PostgreSQL. */
    postgresAdminUrl: string;
  }
}

/** A free TCP port on loopback (also used by bench/scale/dataset.ts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function which(cmd: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  const found = spawnSync("sh", ["-c", `ls /usr/lib/postgresql/*/bin/${cmd} 2>/dev/null | sort -V | tail -n 1`], {
    encoding: "utf8",
  });
  return found.stdout.trim() || null;
}

/** Tiers (vitest.config.ts) whose tests open no database: a run of only these needs no cluster. */
const DATABASE_FREE_PROJECTS = new Set(["fast"]);

/**
 * Starts a throwaway PostgreSQL cluster (initdb + pg_ctl from Debian's postgresql package) in a temp dir on a free
 * port for the whole test run, and removes it afterwards. It is the root project's global setup, so it runs once for
 * every tier. PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const needed = project.vitest.projects.some((p) => !DATABASE_FREE_PROJECTS.has(p.name));
  if (!needed || !testDialects().includes("postgres")) {
    project.provide("postgresAdminUrl", "");
    return async () => {};
  }
  const initdb = which("initdb");
  const pgCtl = which("pg_ctl");
  if (!initdb || !pgCtl) {
    throw new Error(
      "PostgreSQL tests need initdb and pg_ctl (Debian: apt-get install postgresql). Run with TEST_DB=sqlite to skip them.",
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "civic-pg-"));
  const dataDir = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  chmodSync(dir, 0o777);
  const run = (bin: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
    execFileSync(cmd as string, argv as string[], { stdio: ["ignore", "pipe", "pipe"], cwd: dir });
  };
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  const port = await freePort();
  run(initdb, ["-D", dataDir, "-A", "trust", "-U", "civic", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
    "-c shared_buffers=64MB",
  ].join(" ");
  run(pgCtl, ["-D", dataDir, "-o", serverOptions, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  project.provide("postgresAdminUrl", `postgres://civic@127.0.0.1:${port}/postgres`);

  return async () => {
    try {
      run(pgCtl, ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
