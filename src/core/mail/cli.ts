import { type Command, UsageError } from "../cli.js";
import { configuredTransport } from "./plugin.js";
import { unsuppressAddress } from "./suppressions.js";
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
        .select(["id", "kind", "attempts", "next_attempt_at", "last_error", "sent_at", "failed_at"])
        .execute();
      const failed = rows.filter((r) => r.failed_at !== null);
      const waiting = rows.filter((r) => r.sent_at === null && r.failed_at === null);
      const failing = waiting.filter((r) => r.attempts > 0);
      const suppressed = await database.db
        .selectFrom("mail_suppressions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      out(
        `Sent: ${rows.length - waiting.length - failed.length}. Waiting: ${waiting.length}. Failed at least once: ${failing.length}. Failed for good: ${failed.length}. Suppressed addresses: ${Number(suppressed.n)}.`,
      );
      for (const r of failing.slice(0, 20)) {
        out(`  #${r.id} ${r.kind}: ${r.attempts} attempts, next ${r.next_attempt_at}: ${r.last_error ?? ""}`);
      }
      return 0;
    },
  },
  "mail unsuppress": {
    summary: "Allow mail to an address again that had refused mail permanently",
    usage: "civic mail unsuppress ADDRESS",
    async run({ database, args, out, err }) {
      const [address, extra] = args;
      if (!address || extra !== undefined) throw new UsageError("Give exactly one email address.");
      if (await unsuppressAddress(database.db, address)) {
        out("Removed the address from the suppression list.");
        return 0;
      }
      err("That address is not on the suppression list.");
      return 1;
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
