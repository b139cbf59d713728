// Analytics benchmark: home page throughput of the app with counting on and off, in separate server processes,
// measured in alternating rounds (on, off, on, off, ...) so that load from other work on the machine falls on both.
// Each request carries one of 50 browser user agents (50 unique visitors, mobile and desktop), so every request is
// a counted page view with the HMAC, the device class and a buffered upsert. Loopback only; loops bounded in time.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hookCost } from "./hook.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "8" },
    path: { type: "string", default: "/" },
    // Writes a V8 CPU profile of each server process (node --cpu-prof) into this folder when the benchmark ends.
    profile: { type: "string" },
    // Instead of the throughput rounds: the counting hook's own CPU time per request, in this process, from
    // app.inject() of a tiny HTML route on two apps (counting on and off) in alternating blocks.
    hook: { type: "boolean", default: false },
    // A/A check of the set-up: both servers without counting (labelled on and off as usual), so any difference is
    // the benchmark's own (start order, ports, databases), not counting's.
    "both-off": { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PATH = values.path as string;
const PROFILE = values.profile;
const MAX_REQUESTS = 5_000_000;

export const AGENTS = Array.from({ length: 50 }, (_, i) =>
  i % 3 === 0
    ? `Mozilla/5.0 (iPhone; CPU iPhone OS 17_${i} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1`
    : `Mozilla/5.0 (X11; Linux x86_64; rv:12${i}.0) Gecko/20100101 Firefox/12${i}.0`,
);

interface Server {
  child: ChildProcess;
  port: number;
}

function start(serverBundle: string, mode: "on" | "off", dataDir: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const execArgv = PROFILE
      ? ["--cpu-prof", "--cpu-prof-dir", PROFILE, "--cpu-prof-name", `server-${mode}.cpuprofile`]
      : [];
    const child = fork(serverBundle, [values["both-off"] ? "off" : mode, dataDir], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      execArgv,
    });
    child.once("message", (m) => resolve({ child, port: (m as { port: number }).port }));
    child.once("exit", (code) => reject(new Error(`server ${mode} exited with ${code}`)));
  });
}

function get(agent: Agent, port: number, ua: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: PATH, agent, headers: { "user-agent": ua } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The server process's CPU time so far (user + system, µs). */
function serverCpu(server: Server): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m === "object" && m !== null && "cpu" in m) {
        server.child.off("message", onMessage);
        resolve((m as { cpu: number }).cpu);
      }
    };
    server.child.on("message", onMessage);
    server.child.send("cpu");
  });
}

interface Round {
  /** Requests per second. */
  rps: number;
  /** The server's CPU time per request (µs). */
  serverCpu: number;
  /** The load generator's CPU time per request (µs): the same code for both modes, so it should not differ. */
  clientCpu: number;
}

/** One round against a server: throughput and CPU time per request of the server and of the load generator. */
async function round(server: Server, seconds: number): Promise<Round> {
  const cpuBefore = await serverCpu(server);
  const clientBefore = process.cpuUsage();
  const { done, elapsed } = await load(server.port, seconds);
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = await serverCpu(server);
  return {
    rps: done / elapsed,
    serverCpu: (cpuAfter - cpuBefore) / done,
    clientCpu: (client.user + client.system) / done,
  };
}

/** Requests done in `seconds` (and the time taken), with `connections` requests in flight. */
async function load(port: number, seconds: number): Promise<{ done: number; elapsed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const end = Date.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const worker = async (w: number) => {
    let i = w;
    while (Date.now() < end && done < MAX_REQUESTS) {
      const status = await get(agent, port, AGENTS[i++ % AGENTS.length] as string);
      if (status !== 200) failed++;
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} requests failed`);
  return { done, elapsed };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function main(serverBundle: string): Promise<void> {
  if (values.hook) return hookCost(ROUNDS, SECONDS);
  const root = mkdtempSync(join(tmpdir(), "civic-bench-analytics-"));
  const servers: Record<"on" | "off", Server | null> = { on: null, off: null };
  try {
    servers.on = await start(serverBundle, "on", join(root, "on"));
    servers.off = await start(serverBundle, "off", join(root, "off"));
    console.log(`GET ${PATH}, ${CONNECTIONS} connections, ${SECONDS} s per round, ${ROUNDS} rounds per mode`);
    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    // Warm-up: both servers compile their hot paths.
    await load(servers.on.port, 2);
    await load(servers.off.port, 2);
    const results: Record<"on" | "off", Round[]> = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order: ("on" | "off")[] = r % 2 === 0 ? ["on", "off"] : ["off", "on"];
      for (const mode of order) {
        const result = await round(servers[mode] as Server, SECONDS);
        results[mode].push(result);
        console.log(
          `round ${r + 1} ${mode.padEnd(3)} ${result.rps.toFixed(0).padStart(6)} req/s` +
            `  server ${result.serverCpu.toFixed(1).padStart(6)} µs CPU/req  load generator ${result.clientCpu.toFixed(1)} µs CPU/req`,
        );
      }
    }
    const summary = (pick: (r: Round) => number) => {
      const on = median(results.on.map(pick));
      const off = median(results.off.map(pick));
      const ratios = results.on.map((x, i) => pick(x) / pick(results.off[i] as Round));
      return { on, off, ratio: (median(ratios) - 1) * 100 };
    };
    const rps = summary((r) => r.rps);
    console.log(`median with counting:    ${rps.on.toFixed(0)} req/s`);
    console.log(`median without counting: ${rps.off.toFixed(0)} req/s`);
    console.log(`difference of medians:   ${(((rps.on - rps.off) / rps.off) * 100).toFixed(1)}%`);
    console.log(`median of paired ratios: ${rps.ratio.toFixed(1)}%`);
    const cpu = summary((r) => r.serverCpu);
    console.log(
      `server CPU per request:  ${cpu.on.toFixed(1)} µs with counting, ${cpu.off.toFixed(1)} µs without` +
        ` (${(cpu.on - cpu.off).toFixed(1)} µs, median of paired ratios ${cpu.ratio >= 0 ? "+" : ""}${cpu.ratio.toFixed(1)}%)`,
    );
    const client = summary((r) => r.clientCpu);
    console.log(
      `load generator CPU/req:  ${client.on.toFixed(1)} µs against the counting server, ${client.off.toFixed(1)} µs against the other`,
    );
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    for (const s of [servers.on, servers.off]) s?.child.send("stop");
    await new Promise((r) => setTimeout(r, 500));
    rmSync(root, { recursive: true, force: true });
  }
}
