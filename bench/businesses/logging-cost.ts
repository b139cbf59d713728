// The CPU cost of request logging, measured inside one process so the machine's other load hits every variant
// alike: the whole platform (buildApp) answering `/api/v1/businesses` 304s through `inject`, in alternating
// batches, with logging off, with the default logging (304s counted, not logged one by one), with an access line for
// every 304 (LOG_NOT_MODIFIED=each), and with Fastify's default two lines per request.
// Log lines go to stdout, which the parent points at a file. Results go to the parent over IPC.
import { LogController } from "fastify";
import { buildApp } from "../../src/app.js";
import { AccessLogController } from "../../src/core/http/logger.js";
import { loadConfig } from "../../src/config.js";

const ROUNDS = Number(process.argv[2] ?? "15");
const PER_BATCH = 2000;

async function measure(): Promise<Record<string, number[]>> {
  const config = loadConfig({
    DATA_DIR: process.env.BENCH_DATA_DIR,
    BASE_URL: "http://bench.test",
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
    LOG_LEVEL: "info",
    SEED_DEMO: "false",
  });
  const assets = { url: (name: string) => `/assets/${name}` };
  const apps = {
    "logging off (LOG_LEVEL=silent)": await buildApp(config, { assets, logger: false }),
    "LOG_LEVEL=info (default: 304s counted)": await buildApp(config, { assets }),
    "LOG_LEVEL=info, an access line per 304": await buildApp(config, {
      assets,
      logController: new AccessLogController({ notModified: "each" }),
    }),
    "LOG_LEVEL=info, Fastify's two lines": await buildApp(config, { assets, logController: new LogController() }),
  };
  const enc = { "accept-encoding": "gzip, deflate, br" };
  const first = await apps["logging off (LOG_LEVEL=silent)"].inject({ url: "/api/v1/businesses", headers: enc });
  const headers = { ...enc, "if-none-match": String(first.headers.etag) };
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS + 2; round++) {
    for (const [name, app] of Object.entries(apps)) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < PER_BATCH; i++) {
        const res = await app.inject({ url: "/api/v1/businesses", headers });
        if (res.statusCode !== 304) throw new Error(`expected 304, got ${res.statusCode}`);
      }
      await new Promise((resolve) => setImmediate(resolve)); // the batched log write of the last turn
      const used = process.cpuUsage(t0);
      if (round >= 2) (cpu[name] ??= []).push((used.user + used.system) / PER_BATCH);
    }
  }
  for (const app of Object.values(apps)) await app.close();
  return cpu;
}

measure().then(
  (cpu) => process.send?.({ cpu }, () => process.exit(0)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
