// One app server for the analytics benchmark: counting on or off (argv[2]), its own seeded SQLite database
// (argv[3]), listening on a free loopback port that it reports to the parent process.
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";

const [mode, dataDir] = process.argv.slice(2) as [string, string];
const config = loadConfig({
  DATA_DIR: dataDir,
  BASE_URL: "http://127.0.0.1",
  SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
  LOG_LEVEL: "silent",
  SEED_DEMO: "true",
});
const app = await buildApp(config, { analytics: mode === "on" });
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.send?.({ port: typeof address === "object" && address ? address.port : 0 });
process.on("message", async (msg) => {
  // The parent asks for this process's CPU time before and after each round: CPU per request is far less sensitive
  // to other load on the machine than throughput.
  if (msg === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  } else if (msg === "stop") {
    await app.close();
    process.exit(0);
  }
});
