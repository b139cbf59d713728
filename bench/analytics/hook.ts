// The counting hook's CPU time per request, without HTTP, page rendering or the app's other hooks: two bare Fastify
// instances in this process, one with the analytics plugin and one without, answer a tiny HTML route through
// inject(); blocks of requests alternate between them and the difference of CPU time per request
// (process.cpuUsage) is what counting costs, flushes included. Requests rotate through the same 50
// browser user agents as the throughput benchmark and 20 client addresses, so most requests are counted page views
// of a visitor already seen in the flush window, as on a real site.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { analyticsPlugin } from "../../src/analytics/plugin.js";
import { loadConfig } from "../../src/config.js";
import type { Civic } from "../../src/core/context.js";
import { openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { AGENTS } from "./bench.js";

const BLOCK = 2_000;
const ADDRESSES = Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`);

async function app(dataDir: string, analytics: boolean): Promise<FastifyInstance> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    BASE_URL: "http://127.0.0.1",
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
    LOG_LEVEL: "silent",
    SEED_DEMO: "false",
  });
  const database = openDatabase({ databaseUrl: null, dataDir });
  await migrateToLatest(database.db);
  const a = Fastify();
  // Only what the analytics plugin uses of the app's shared context.
  const civic = { config, database, now: () => new Date(), workers: [] } as unknown as Civic;
  a.decorate("civic", civic);
  a.addHook("onClose", async () => {
    await Promise.all(civic.workers.map((w) => w.stop()));
    await database.close();
  });
  if (analytics) await a.register(analyticsPlugin);
  a.get("/tiny", async (_request, reply) => reply.type("text/html; charset=utf-8").send("<p>tiny</p>"));
  await a.ready();
  return a;
}

/** CPU µs per request of one block of `BLOCK` injected requests. */
async function block(a: FastifyInstance, offset: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) {
    const n = offset + i;
    const res = await a.inject({
      method: "GET",
      url: "/tiny",
      headers: { "user-agent": AGENTS[n % AGENTS.length] as string },
      remoteAddress: ADDRESSES[n % ADDRESSES.length] as string,
    });
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / BLOCK;
}

export async function hookCost(rounds: number, seconds: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "civic-bench-hook-"));
  const apps = { on: await app(join(root, "on"), true), off: await app(join(root, "off"), false) };
  try {
    // Warm-up: both apps compile their hot paths.
    for (let i = 0; i < 5; i++) {
      await block(apps.on, i * BLOCK);
      await block(apps.off, i * BLOCK);
    }
    const diffs: number[] = [];
    const on: number[] = [];
    const off: number[] = [];
    let offset = 0;
    const end = Date.now() + rounds * seconds * 1000;
    while (Date.now() < end && diffs.length < 1000) {
      const a = await block(apps.on, offset);
      const b = await block(apps.off, offset);
      offset += BLOCK;
      on.push(a);
      off.push(b);
      diffs.push(a - b);
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
    console.log(`bare Fastify, inject GET /tiny, ${diffs.length} pairs of ${BLOCK}-request blocks`);
    console.log(`CPU per request with counting:    ${median(on).toFixed(2)} µs (median of blocks)`);
    console.log(`CPU per request without counting: ${median(off).toFixed(2)} µs`);
    console.log(`counting costs:                   ${median(diffs).toFixed(2)} µs per request (median of pairs)`);
  } finally {
    await apps.on.close();
    await apps.off.close();
    rmSync(root, { recursive: true, force: true });
  }
}
