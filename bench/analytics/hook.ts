// The counting hook's CPU time per request, without HTTP, page rendering or the app's other hooks: two bare Fastify
// instances in this process, one with the analytics plugin and one without, each with a tiny HTML route. The
// onResponse hooks of that route are called directly with a real request and reply, in blocks that alternate
// between the two instances; the difference of CPU time per request (process.cpuUsage) is what counting costs,
// flushes included. Requests rotate through the same 50 browser user agents as the throughput benchmark from one
// address: 50 visitors per flush window, the rest views by visitors already seen, as on a real site.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { analyticsPlugin } from "../../src/analytics/plugin.js";
import { loadConfig } from "../../src/config.js";
import type { Civic } from "../../src/core/context.js";
import { openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";
import { AGENTS } from "./bench.js";

const BLOCK = 100_000;
const WINDOW = 5_000;

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
  return a;
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * The onResponse hooks that run for GET /tiny, with a real request and reply of that route: taken from Fastify's
 * route context (an internal symbol), so that the hooks can be called directly. Going through inject() for every
 * request would measure mostly inject itself, which also keeps memory growing (about 10 kB per request), so that
 * the garbage collector's work swamps what is measured.
 */
interface TinyRoute {
  request: FastifyRequest;
  reply: FastifyReply;
  hooks: Hook[];
}

async function tinyRoute(a: FastifyInstance): Promise<TinyRoute> {
  let captured: { request: FastifyRequest; reply: FastifyReply } | null = null;
  a.get("/tiny", async (request, reply) => {
    captured = { request, reply };
    return reply.type("text/html; charset=utf-8").send("<p>tiny</p>");
  });
  await a.ready();
  await a.inject({ method: "GET", url: "/tiny", headers: { "user-agent": AGENTS[0] as string } });
  if (!captured) throw new Error("the route did not run");
  const { request, reply } = captured as { request: FastifyRequest; reply: FastifyReply };
  const symbol = Object.getOwnPropertySymbols(request).find((s) => s.description === "fastify.context");
  const context = symbol ? (request as unknown as Record<symbol, { onResponse: Hook[] | null }>)[symbol] : null;
  return { request, reply, hooks: context?.onResponse ?? [] };
}

/**
 * CPU µs per request of `BLOCK` calls of the route's onResponse hooks, with rotating user agents, and a flush after
 * every `WINDOW` calls (a 5-second window at 1,000 page views a second), so that the work done at the flush (the
 * visitor hashes, the database write) is counted too.
 */
async function block(a: FastifyInstance, route: TinyRoute, offset: number): Promise<number> {
  const { request, reply, hooks } = route;
  const done = () => {};
  const before = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) {
    request.headers["user-agent"] = AGENTS[(offset + i) % AGENTS.length] as string;
    for (const hook of hooks) hook(request, reply, done);
    if ((i + 1) % WINDOW === 0 && a.hasDecorator("analytics")) await a.analytics.flush();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / BLOCK;
}

export async function hookCost(rounds: number, seconds: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "civic-bench-hook-"));
  const apps = { on: await app(join(root, "on"), true), off: await app(join(root, "off"), false) };
  const routes = { on: await tinyRoute(apps.on), off: await tinyRoute(apps.off) };
  try {
    // Warm-up: both apps compile their hot paths.
    for (let i = 0; i < 3; i++) {
      await block(apps.on, routes.on, i * BLOCK);
      await block(apps.off, routes.off, i * BLOCK);
    }
    const diffs: number[] = [];
    const on: number[] = [];
    const off: number[] = [];
    let offset = 0;
    const end = Date.now() + rounds * seconds * 1000;
    while (Date.now() < end && diffs.length < 100_000) {
      const a = await block(apps.on, routes.on, offset);
      const b = await block(apps.off, routes.off, offset);
      offset += BLOCK;
      on.push(a);
      off.push(b);
      diffs.push(a - b);
    }
    const quantile = (xs: number[], q: number) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * q)] as number;
    const median = (xs: number[]) => quantile(xs, 0.5);
    console.log(
      `onResponse hooks of GET /tiny called directly, ${diffs.length} pairs of ${BLOCK}-request blocks, a flush every ${WINDOW}`,
    );
    console.log(`CPU per request with counting:    ${median(on).toFixed(2)} µs (median of blocks)`);
    console.log(`CPU per request without counting: ${median(off).toFixed(2)} µs`);
    console.log(
      `counting costs:                   ${median(diffs).toFixed(2)} µs per request (median of pairs;` +
        ` quartiles ${quantile(diffs, 0.25).toFixed(2)} to ${quantile(diffs, 0.75).toFixed(2)} µs)`,
    );
  } finally {
    await apps.on.close();
    await apps.off.close();
    rmSync(root, { recursive: true, force: true });
  }
}
