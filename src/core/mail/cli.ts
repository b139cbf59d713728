import { type Command, UsageError } from "../../cli.js";
import { configuredTransport } from "./plugin.js";
import { OutboxWorker } from "./worker.js";

/** `civic mail status|send`: see what is waiting in the outbox, and send what is due now (e.g. from cron). */
export const mailCommands: Record<string, Command> = {
  "mail status": {
    summary: "Show how many emails are waiting, failing or sent",
    usage: "civic mail status",
    async run({ database, args, out }) {
      if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
      const rows = await database.db
        .selectFrom("outbox")
        .select(["id", "kind", "attempts", "next_attempt_at", "last_error", "sent_at"])
        .execute();
      const waiting = rows.filter((r) => r.sent_at === null);
      const failing = waiting.filter((r) => r.attempts > 0);
      out(
        `Sent: ${rows.length - waiting.length}. Waiting: ${waiting.length}. Failed at least once: ${failing.length}.`,
      );
      for (const r of failing.slice(0, 20)) {
        out(`  #${r.id} ${r.kind}: ${r.attempts} attempts, next ${r.next_attempt_at}: ${r.last_error ?? ""}`);
      }
      return 0;
    },
  },
  "mail send": {
    summary: "Send the emails that are due now, then exit",
    usage: "civic mail send",
    async run({ config, database, args, out }) {
      if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
      const worker = new OutboxWorker({
        db: database.db,
        transport: configuredTransport(config),
        from: config.mailFrom,
        now: () => new Date(),
      });
      const sent = await worker.runOnce();
      await worker.stop();
      out(`Sent ${sent} email${sent === 1 ? "" : "s"}.`);
      return 0;
    },
  },
};
