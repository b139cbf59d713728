// Business API benchmark: a synthetic directory, the list endpoint (200 and 304) against a bare node:http server
// sending the same prepared bytes, and q-search latency. Loopback only; every loop is bounded in time and count.
import { type ChildProcess, fork } from "node:child_process";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BusinessInput } from "../../src/businesses/model.js";
import { applyBusinesses } from "../../src/businesses/repository.js";
import { openDatabase } from "../../src/core/db/database.js";
import { migrateToLatest } from "../../src/core/db/migrations/index.js";

const { values } = parseArgs({
  options: {
    businesses: { type: "string", default: "10000" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "8" },
    searches: { type: "string", default: "2000" },
    rounds: { type: "string", default: "3" },
    /** Where `app-logged` writes its log lines (its stdout); by default a file in the benchmark's temp folder. */
    "log-file": { type: "string" },
    /** Batches of the in-process logging cost comparison (logging-cost.ts); 0 skips it. */
    "logging-rounds": { type: "string", default: "15" },
    /** Comma-separated servers to measure (bare is always needed); default all. */
    modes: { type: "string" },
    /** Which answers to measure: "200,304" (default), "304" or "200". */
    codes: { type: "string", default: "200,304" },
    /**
     * Also counts the instructions each server executes per 304 (user space, valgrind's callgrind): this many
     * responses, after four times as many uncounted ones; 0 skips it. The count does not move with the machine's
     * other load as time does (only by a few per cent between runs, from timers and the JIT's background work),
     * but it leaves out the kernel's part (the socket and log writes).
     */
    instructions: { type: "string", default: "0" },
    /** Writes a V8 CPU profile of every server process into this folder (node --cpu-prof), for `bench/cpu-profile.mjs`. */
    profile: { type: "string" },
  },
});
const COUNT = Number(values.businesses);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const SEARCHES = Number(values.searches);
const ROUNDS = Number(values.rounds);
/** Searches sent first and not counted, so the JIT has compiled the search path. */
const WARM_UP = 1000;
const MAX_REQUESTS = 2_000_000;

const TYPES = [
  ["Bakery", "Food and drink"],
  ["CafeOrCoffeeShop", "Food and drink"],
  ["BarOrPub", "Food and drink"],
  ["Restaurant", "Food and drink"],
  ["GroceryStore", "Shops"],
  ["BookStore", "Shops"],
  ["HardwareStore", "Shops"],
  ["Florist", "Shops"],
  ["Pharmacy", "Health"],
  ["Dentist", "Health"],
  ["Plumber", "Trades"],
  ["Electrician", "Trades"],
  ["HairSalon", "Beauty and wellbeing"],
  ["BedAndBreakfast", "Accommodation"],
  ["AutoRepair", "Motoring"],
  ["AccountingService", "Services"],
] as const;
const WORDS =
  "old new village green mill brook church station orchard meadow forge chapel market bridge hill vale oak ash willow rose crown swan lion bell plough wheatsheaf harvest golden silver corner little great kings queens abbey priory manor farm barn cottage lodge hall garden".split(
    " ",
  );
const STREETS = ["High Street", "Church Lane", "Mill Road", "Brook Lane", "The Green", "Station Road", "Back Lane"];

/** A deterministic pseudo-random sequence, so every run serves the same dataset. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function synthetic(n: number): BusinessInput[] {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  return Array.from({ length: n }, (_, i) => {
    const [schemaType, category] = pick(TYPES);
    const name = `${pick(WORDS)} ${pick(WORDS)} ${schemaType.replace(/([a-z])([A-Z])/g, "$1 $2")} ${i}`;
    const description = Array.from({ length: 22 }, () => pick(WORDS)).join(" ");
    return {
      id: `business-${i}`,
      name: name.charAt(0).toUpperCase() + name.slice(1),
      schemaType,
      category,
      description: `${description.charAt(0).toUpperCase()}${description.slice(1)}.`,
      address: {
        streetAddress: `${1 + (i % 200)} ${pick(STREETS)}`,
        addressLocality: "Benchford",
        addressRegion: "Dorset",
        postalCode: `YR7 ${1 + (i % 9)}QP`,
        addressCountry: "GB",
      },
      geo: { latitude: 50.98 + r() / 100, longitude: -2.05 + r() / 100 },
      telephone: `01632 ${String(960000 + (i % 1000)).padStart(6, "0")}`,
      email: `shop${i}@example.org`,
      url: `https://example.org/business-${i}`,
      image: null,
      sameAs: [],
      openingHours: [
        { dayOfWeek: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], opens: "09:00", closes: "17:30" },
      ],
    };
  });
}

interface Server {
  port: number;
  child: ChildProcess;
}

function startServer(
  script: string,
  mode: Mode,
  dataDir: string,
  logFile?: string,
  callgrindOut?: string,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    // stdout of the logged app goes to a file, as under a process manager; the others inherit the terminal.
    const out = logFile === undefined ? undefined : openSync(logFile, "a");
    const child = fork(script, [mode], {
      env: { ...process.env, BENCH_DATA_DIR: dataDir },
      ...(values.profile && !callgrindOut
        ? { execArgv: ["--cpu-prof", `--cpu-prof-dir=${values.profile}`, `--cpu-prof-name=${mode}.cpuprofile`] }
        : {}),
      // Under callgrind, counting nothing until told to (callgrind_control -i on).
      ...(callgrindOut
        ? {
            execPath: "valgrind",
            execArgv: [
              "--tool=callgrind",
              "--instr-atstart=no",
              "--quiet",
              `--callgrind-out-file=${callgrindOut}`,
              process.execPath,
            ],
          }
        : {}),
      stdio: out === undefined ? "inherit" : ["ignore", out, "inherit", "ipc"],
    });
    if (out !== undefined) closeSync(out);
    child.once("message", (m) => resolve({ port: (m as { port: number }).port, child }));
    child.once("exit", (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

function stopServer(s: Server): Promise<void> {
  return new Promise((resolve) => {
    s.child.once("exit", () => resolve());
    s.child.disconnect();
  });
}

interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

function get(agent: Agent, port: number, path: string, headers: Record<string, string>): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Requests per second over SECONDS: CONNECTIONS keep-alive sockets, each with PIPELINE requests in flight
 * (HTTP/1.1 pipelining, answered in order). A raw-socket client is cheap enough that the server, not the load
 * generator, is what gets measured.
 */
/** The bytes of one GET request, as the raw-socket client sends it. */
function requestHead(port: number, path: string, headers: Record<string, string>): Buffer {
  return Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}\r\n`,
  );
}

/**
 * CONNECTIONS pipelined connections for `ms`, or until they have sent `max` requests in all (otherwise each stops at
 * MAX_REQUESTS): the responses received.
 */
async function load(port: number, head: Buffer, expectStatus: number, ms: number, max?: number) {
  const perConnection = max === undefined ? MAX_REQUESTS : Math.ceil(max / CONNECTIONS);
  const counts = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => pipelined(port, head, expectStatus, ms, perConnection)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function throughput(server: Server, path: string, headers: Record<string, string>, expectStatus: number) {
  const head = requestHead(server.port, path, headers);
  await load(server.port, head, expectStatus, 1000);
  const cpu0 = await serverCpu(server);
  const started = performance.now();
  const n = await load(server.port, head, expectStatus, SECONDS * 1000);
  const elapsed = performance.now() - started;
  const cpu = (await serverCpu(server)) - cpu0;
  return { rps: n / (elapsed / 1000), cpuPerResponse: cpu / n };
}

/** The server process's CPU time so far (µs), asked over IPC. */
function serverCpu(server: Server): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const cpu = (m as { cpu?: number }).cpu;
      if (cpu === undefined) return;
      server.child.off("message", onMessage);
      resolve(cpu);
    };
    server.child.on("message", onMessage);
    server.child.send("cpu");
  });
}

const PIPELINE = 4;
const HEADER_END = Buffer.from("\r\n\r\n");

/** One connection: keeps PIPELINE requests in flight for `ms`, returns how many responses arrived. */
function pipelined(
  port: number,
  request: Buffer,
  expectStatus: number,
  ms: number,
  maxRequests = MAX_REQUESTS,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.setNoDelay(true);
    const until = performance.now() + ms;
    let pending: Buffer = Buffer.alloc(0);
    let inFlight = 0;
    let sent = 0;
    let done = 0;
    let bodyLeft = 0;
    let stopping = false;
    const send = () => {
      while (!stopping && inFlight < PIPELINE && sent < maxRequests) {
        socket.write(request);
        inFlight++;
        sent++;
      }
    };
    socket.on("connect", send);
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (bodyLeft > 0) {
          const take = Math.min(bodyLeft, pending.length);
          bodyLeft -= take;
          pending = pending.subarray(take);
          if (bodyLeft > 0) return;
          done++;
          inFlight--;
          continue;
        }
        const end = pending.indexOf(HEADER_END);
        if (end < 0) break;
        const headText = pending.toString("latin1", 0, end);
        const status = Number(headText.slice(9, 12));
        if (status !== expectStatus) {
          socket.destroy();
          reject(new Error(`expected ${expectStatus}, got ${status}`));
          return;
        }
        const length = /\r\ncontent-length: *(\d+)/i.exec(headText);
        pending = pending.subarray(end + 4);
        bodyLeft = status === 304 || !length ? 0 : Number(length[1]);
        if (bodyLeft === 0) {
          done++;
          inFlight--;
        }
      }
      if (performance.now() >= until || sent >= maxRequests) stopping = true;
      if (stopping && inFlight === 0) {
        socket.end();
        resolve(done);
        return;
      }
      send();
    });
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Server-side times of the searches the server has answered since last asked, sorted. */
function serverSearchTimes(server: Server): Promise<number[]> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const times = (m as { searchTimes?: number[] }).searchTimes;
      if (!times) return;
      server.child.off("message", onMessage);
      resolve(times.sort((a, b) => a - b));
    };
    server.child.on("message", onMessage);
    server.child.send("search-times");
  });
}

/** Latency of distinct q searches, one at a time (no queueing), each a cache miss. */
async function searchLatency(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const r = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const times: number[] = [];
  let results = 0;
  const deadline = performance.now() + 60_000;
  for (let i = 0; i < SEARCHES + WARM_UP && performance.now() < deadline; i++) {
    // Two words, or a word and a house number: always new queries, so nothing comes from the per-version cache.
    const q = i % 2 === 0 ? `${pick(WORDS)} ${pick(WORDS)} ${i}` : `${pick(WORDS)} ${1 + (i % 200)} ${pick(STREETS)}`;
    const t0 = performance.now();
    const res = await get(agent, port, `/api/v1/businesses?q=${encodeURIComponent(q)}`, {
      "accept-encoding": "gzip, br",
    });
    const t = performance.now() - t0;
    if (res.status !== 200) throw new Error(`search ${q}: ${res.status}`);
    if (i >= WARM_UP) {
      times.push(t);
      results += res.bytes;
    }
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    n: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: times.at(-1) as number,
    meanBytes: results / times.length,
  };
}

/** Creates the SQLite database of the synthetic directory in `dataDir`. */
export async function prepareData(dataDir: string): Promise<void> {
  const database = openDatabase({ databaseUrl: null, dataDir });
  await migrateToLatest(database.db);
  await applyBusinesses(database.db, synthetic(COUNT), { prune: false, at: new Date().toISOString() });
  await database.close();
}

const MODES = [
  "bare",
  "bare-minimal",
  "routes",
  "static-headers",
  "app",
  "app-logged",
  "app-logged-each",
  "app-logged-two-lines",
] as const;
type Mode = (typeof MODES)[number];

/**
 * Instructions per 304 (user space): the server runs under callgrind with counting off, answers `warmUp` 304s so
 * the JIT has compiled the path, then counts while it answers `count` more. Much steadier than CPU time on a shared
 * machine, though timers (which fire more often per request under valgrind's slowdown) and JIT compilation on
 * background threads move it by a few per cent between runs.
 */
async function instructionsPer304(
  script: string,
  mode: Mode,
  dataDir: string,
  logFile: string | undefined,
  warmUp: number,
  count: number,
): Promise<number> {
  // With --profile DIR, the callgrind output stays there for callgrind_annotate.
  const dir = values.profile ?? dataDir;
  const out = join(dir, `callgrind.${mode}.out`);
  const server = await startServer(script, mode, dataDir, logFile, out);
  try {
    const port = server.port;
    const enc = { "accept-encoding": "gzip, deflate, br" };
    const etag = String((await get(new Agent(), port, "/api/v1/businesses", enc)).headers.etag);
    const head = requestHead(port, "/api/v1/businesses", { ...enc, "if-none-match": etag });
    const send = (n: number) => load(port, head, 304, 600_000, n);
    const control = (...args: string[]) =>
      execFileSync("callgrind_control", [...args, String(server.child.pid)], { stdio: "ignore" });
    await send(warmUp);
    control("--instr=on");
    const answered = await send(count);
    control("--instr=off");
    control("--dump");
    // The dump is written next to the output file, numbered; its "summary:" or "totals:" line is the count.
    const dumps = readdirSync(dir).filter((f) => f.startsWith(`callgrind.${mode}.out.`));
    const text = dumps.map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    const total = [...text.matchAll(/^(?:summary|totals): (\d+)/gm)].map((m) => Number(m[1]));
    if (total.length === 0) throw new Error(`no callgrind totals for ${mode}`);
    return Math.max(...total) / answered;
  } finally {
    await stopServer(server);
  }
}

/** Runs logging-cost.ts (stdout to the log file) and prints CPU time per 304 for each logging variant. */
function loggingCost(script: string, dataDir: string, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = openSync(logFile, "a");
    const child = fork(script, [values["logging-rounds"] as string], {
      env: { ...process.env, BENCH_DATA_DIR: dataDir },
      stdio: ["ignore", out, "inherit", "ipc"],
    });
    closeSync(out);
    child.once("exit", (code) => reject(new Error(`logging-cost exited with ${code}`)));
    child.once("message", (m) => {
      const cpu = (m as { cpu: Record<string, number[]> }).cpu;
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      const off = median(Object.values(cpu)[0] ?? []);
      console.log(
        "\nLogging cost inside one process (whole app, /api/v1/businesses 304 via inject, alternating batches of 2,000;",
      );
      console.log("CPU µs per request, median of batches; relative = logging off / this):");
      for (const [name, xs] of Object.entries(cpu)) {
        console.log(`  ${name.padEnd(38)} ${median(xs).toFixed(1).padStart(6)}   ${(off / median(xs)).toFixed(2)}x`);
      }
      child.removeAllListeners("exit");
      child.once("exit", () => resolve());
    });
  });
}

export async function main(serverScript: string, loggingScript: string): Promise<void> {
  const modes = (values.modes?.split(",") ?? MODES) as Mode[];
  const unknown = modes.filter((m) => !MODES.includes(m));
  if (unknown.length > 0 || !modes.includes("bare")) throw new Error(`--modes: bare plus any of ${MODES.join(", ")}`);
  const dataDir = mkdtempSync(join(tmpdir(), "civic-bench-businesses-"));
  const servers: Partial<Record<Mode, Server>> = {};
  try {
    const t0 = performance.now();
    await prepareData(dataDir);
    console.log(`Loaded ${COUNT} synthetic businesses in ${Math.round(performance.now() - t0)} ms (SQLite).`);
    console.log(
      `Node ${process.version}; ${SECONDS} s per measurement after 1 s warm-up; ${CONNECTIONS} connections; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}.\n`,
    );

    // Every server runs for the whole measurement and they are measured in alternating rounds, so background load
    // on the machine affects all alike; the figures are medians over the rounds, and each ratio to `bare` is also
    // given per round (a server and `bare` measured seconds apart).
    const logFile = values["log-file"] ?? join(dataDir, "app.log");
    for (const mode of modes) {
      servers[mode] = await startServer(
        serverScript,
        mode,
        dataDir,
        mode.startsWith("app-logged") ? logFile : undefined,
      );
    }
    const enc = { "accept-encoding": "gzip, deflate, br" };
    const etags: Partial<Record<Mode, string>> = {};
    let bodyBytes = 0;
    const headerNames: Partial<Record<Mode, string>> = {};
    for (const mode of modes) {
      const first = await get(new Agent(), (servers[mode] as Server).port, "/api/v1/businesses", enc);
      etags[mode] = String(first.headers.etag);
      bodyBytes = first.bytes;
      headerNames[mode] = Object.keys(first.headers).sort().join(", ");
    }
    if (modes.some((m) => etags[m] !== etags.bare)) throw new Error("the servers do not serve the same representation");
    // bare sends what the app sends: the same headers (values differ only in date and request id).
    for (const mode of modes.filter((m) => m.startsWith("app"))) {
      if (headerNames[mode] !== headerNames.bare) {
        throw new Error(`bare and ${mode} send different headers:\n  ${headerNames.bare}\n  ${headerNames[mode]}`);
      }
    }
    const samples: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of modes) {
        const server = servers[mode] as Server;
        const conditional = { ...enc, "if-none-match": etags[mode] as string };
        const codes = (values.codes as string).split(",");
        for (const [code, headers] of [
          [200, enc],
          [304, conditional],
        ] as const) {
          if (!codes.includes(String(code))) continue;
          const r = await throughput(server, "/api/v1/businesses", headers, code);
          (samples[`${mode} ${code}`] ??= []).push(r.rps);
          (cpu[`${mode} ${code}`] ??= []).push(r.cpuPerResponse);
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    console.log(`GET /api/v1/businesses, unfiltered, ${COUNT} businesses, br body ${bodyBytes} bytes`);
    console.log("requests/s (median of rounds; all rounds)");
    for (const [k, xs] of Object.entries(samples)) {
      console.log(`  ${k}: ${median(xs).toFixed(0).padStart(6)}   [${xs.map((x) => x.toFixed(0)).join(", ")}]`);
    }
    console.log("server CPU time per response, µs (median of rounds; all rounds)");
    for (const [k, xs] of Object.entries(cpu)) {
      console.log(`  ${k}: ${median(xs).toFixed(1).padStart(7)}   [${xs.map((x) => x.toFixed(1)).join(", ")}]`);
    }
    for (const reference of ["bare", "bare-minimal"] as const) {
      if (!modes.includes(reference)) continue;
      const others = modes.filter(
        (m) => m !== reference && m !== "bare" && (m !== "bare-minimal" || reference === "bare"),
      );
      // Each ratio as the ratio of the medians, and as the median of the rounds' own ratios: a server and the
      // reference measured seconds apart, so the ratio of a round moves less with the machine's other load than
      // either figure does.
      const ratios = (title: string, table: Record<string, number[]>, better: "higher" | "lower") => {
        console.log(`\n${title} relative to ${reference}: of the medians; median of the rounds' ratios [per round]`);
        const ratio = (x: number, base: number) => (better === "higher" ? x / base : base / x);
        for (const mode of others) {
          const parts = ["200", "304"]
            .filter((code) => table[`${reference} ${code}`])
            .map((code) => {
              const base = table[`${reference} ${code}`] ?? [];
              const xs = table[`${mode} ${code}`] ?? [];
              const perRound = xs.map((x, i) => ratio(x, base[i] as number));
              return `${code} ${ratio(median(xs), median(base)).toFixed(2)}x; ${median(perRound).toFixed(2)}x [${perRound.map((r) => r.toFixed(2)).join(", ")}]`;
            });
          console.log(`  ${mode}: ${parts.join("; ")}`);
        }
      };
      ratios("CPU efficiency (its CPU per response / the server's)", cpu, "lower");
      ratios("throughput", samples, "higher");
    }
    console.log(
      "targets (against bare, which sends the same bytes as the app): app >= 0.80x on 200 and 304; app-logged (LOG_LEVEL=info, the default) >= 0.90x on 304. bare-minimal sends only the representation's headers (no security headers or request id); app-logged-each gives every 304 its own access line (LOG_NOT_MODIFIED=each) and app-logged-two-lines is Fastify's default request logging (two lines per request), for comparison.",
    );
    if (modes.some((m) => m.startsWith("app-logged")) && values["log-file"] === undefined) {
      console.log(`log written by the logged apps: ${(statSync(logFile).size / 1024 / 1024).toFixed(1)} MB`);
    }

    if (Number(values["logging-rounds"]) > 0) await loggingCost(loggingScript, dataDir, logFile);

    const counted = Number(values.instructions);
    if (counted > 0) {
      // The servers of the timed part stop first: callgrind is slow, and the machine has two cores.
      for (const [mode, server] of Object.entries(servers)) {
        await stopServer(server);
        delete servers[mode as Mode];
      }
      console.log(
        `\nInstructions per 304 (user space, callgrind; ${counted} counted after ${4 * counted} not counted):`,
      );
      const counts: Partial<Record<Mode, number>> = {};
      for (const mode of modes) {
        counts[mode] = await instructionsPer304(
          serverScript,
          mode,
          dataDir,
          mode.startsWith("app-logged") ? logFile : undefined,
          4 * counted,
          counted,
        );
        const ratio = (counts.bare as number) / (counts[mode] as number);
        console.log(
          `  ${mode.padEnd(22)} ${Math.round(counts[mode] as number)
            .toLocaleString("en")
            .padStart(9)}   ${ratio.toFixed(2)}x`,
        );
      }
    }

    for (const name of ["routes", "app"] as const) {
      const server = servers[name];
      if (!server || SEARCHES === 0) continue;
      await serverSearchTimes(server);
      const r = await searchLatency(server.port);
      const side = (await serverSearchTimes(server)).slice(-r.n);
      const sp = (p: number) => percentile(side, p).toFixed(2);
      console.log(
        `\nq search (${name}, ${r.n} distinct queries, one at a time, br, mean body ${Math.round(r.meanBytes)} bytes):\n` +
          `  round trip  p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(2)} ms\n` +
          `  server side p50 ${sp(50)} ms, p95 ${sp(95)} ms, p99 ${sp(99)} ms, max ${sp(100)} ms (target p99 < 5 ms)`,
      );
    }
  } finally {
    for (const server of Object.values(servers)) await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
