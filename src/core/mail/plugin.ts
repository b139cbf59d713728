import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { fileTransport, type MailTransport, smtpTransport } from "./transport.js";
import { OutboxWorker } from "./worker.js";

/** Where mail is written as .eml files: DATA_DIR/mail/ when SMTP_URL is not set, otherwise nowhere (null). */
export function mailFileDirectory(config: { smtpUrl: string | null; dataDir: string }): string | null {
  return config.smtpUrl ? null : join(config.dataDir, "mail");
}

/** SMTP when SMTP_URL is set, otherwise .eml files under DATA_DIR/mail/. */
export function configuredTransport(config: { smtpUrl: string | null; dataDir: string }): MailTransport {
  return config.smtpUrl ? smtpTransport(config.smtpUrl) : fileTransport(join(config.dataDir, "mail"));
}

/** Registers the outbox worker in `civic.workers`; server.ts starts it and app.close() stops it. Registered once. */
export const mailWorkerPlugin = fp(
  async (app: FastifyInstance) => {
    const { civic } = app;
    if (civic.workers.some((w) => w.name === "mail-outbox")) return;
    civic.workers.push(
      new OutboxWorker({
        db: civic.database.db,
        transport: configuredTransport(civic.config),
        from: civic.config.mailFrom,
        pollMs: civic.config.mailPollMs,
        now: () => civic.now(),
        log: app.log,
      }),
    );
  },
  { name: "mail-worker" },
);
