import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { printedUrl } from "./core/http/loopback.js";
import { startDraining } from "./health/routes.js";

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /**
   * Drains: GET /readyz answers 503 at once and the workers stop (jobs release their leases); after DRAIN_SECONDS
   * (time for a load balancer to notice) stops accepting connections, lets in-flight requests finish and closes the
   * database.
   */
  close(): Promise<void>;
}

/** Listens on the configured address and starts the background workers. */
export async function startServer(app: FastifyInstance, config: Config): Promise<RunningServer> {
  const address = await app.listen({ port: config.port, host: config.host });
  for (const worker of app.civic.workers) worker.start();
  let closing: Promise<void> | undefined;
  return {
    app,
    url: address,
    close() {
      closing ??= (async () => {
        startDraining(app.civic);
        if (config.drainMs > 0) {
          // Taken out of the list, so app.close() does not stop them a second time.
          await Promise.all(app.civic.workers.splice(0).map((w) => w.stop()));
          await new Promise((r) => setTimeout(r, config.drainMs));
        }
        // Stops the workers still listed (leases released) before closing the database.
        await app.close();
      })();
      return closing;
    },
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp(config);
  const server = await startServer(app, config);
  const shown = printedUrl(config.baseUrl, server.url, config.host);
  app.log.info(`Community Civic Platform is running at ${shown}`);
  if (process.stdout.isTTY || process.env.CIVIC_PRINT_URL !== "0") console.log(`Open ${shown} in your browser.`);

  const shutdown = (signal: NodeJS.Signals) => {
    app.log.info({ signal, drainMs: config.drainMs }, "shutting down: draining, then finishing in-flight requests");
    const timer = setTimeout(() => {
      app.log.error("shutdown took longer than 10 s; exiting");
      process.exit(1);
    }, config.drainMs + 10_000);
    timer.unref();
    server.close().then(
      () => {
        app.log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, "error while shutting down");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

const entry = process.argv[1] ?? "";
if (/server\.(js|ts)$/.test(entry)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
