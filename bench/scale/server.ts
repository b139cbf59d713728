// One app process under test (the whole platform, buildApp), configured by the environment the parent passes
// (DATA_DIR, DATABASE_URL, …). Reports its port over IPC and exits when the parent goes away.
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";

async function start(): Promise<number> {
  const app = await buildApp(loadConfig(process.env));
  await app.listen({ port: 0, host: "127.0.0.1" });
  return (app.server.address() as AddressInfo).port;
}

start().then(
  (port) => process.send?.({ port }),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
process.on("disconnect", () => process.exit(0));
// The benchmark stops the server with SIGTERM: exit normally so `node --cpu-prof` writes its profile.
process.on("SIGTERM", () => process.exit(0));
