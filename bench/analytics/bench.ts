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

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "8" },
    path: { type: "string", default: "/" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PATH = values.path as string;
const MAX_REQUESTS = 5_000_000;

const AGENTS = Array.from({ length: 50 }, (_, i) =>
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
    const child = fork(serverBundle, [mode, dataDir], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
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

/** Requests per second over `seconds`, with `connections` requests in flight. */
async function load(port: number, seconds: number): Promise<number> {
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
  return done / elapsed;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function main(serverBundle: string): Promise<void> {
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
    const results: Record<"on" | "off", number[]> = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order: ("on" | "off")[] = r % 2 === 0 ? ["on", "off"] : ["off", "on"];
      for (const mode of order) {
        const rps = await load((servers[mode] as Server).port, SECONDS);
        results[mode].push(rps);
        console.log(`round ${r + 1} ${mode.padEnd(3)} ${rps.toFixed(0)} req/s`);
      }
    }
    const on = median(results.on);
    const off = median(results.off);
    const ratios = results.on.map((x, i) => x / (results.off[i] as number));
    console.log(`median with counting:    ${on.toFixed(0)} req/s`);
    console.log(`median without counting: ${off.toFixed(0)} req/s`);
    console.log(`difference of medians:   ${(((on - off) / off) * 100).toFixed(1)}%`);
    console.log(`median of paired ratios: ${((median(ratios) - 1) * 100).toFixed(1)}%`);
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
