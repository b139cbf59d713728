import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Command, UsageError } from "../cli.js";
import { messageIdOfFile } from "./mail-files.js";
import { configuredTransport, mailFileDirectory } from "./plugin.js";
import { unsuppressAddress } from "./suppressions.js";
import { OutboxWorker } from "./worker.js";

/**
 * The web addresses in a mail's text, each once, in order: what a person trying the site locally wants to open
 * from a sign-in or confirmation mail. Punctuation that ends a sentence or closes brackets is not part of one.
 */
export function linksIn(text: string): string[] {
  const found = (text.match(/https?:\/\/[^\s<>"]+/g) ?? []).map((u) => u.replace(/[.,;:!?)\]'"]+$/, ""));
  return [...new Set(found)];
}

/** The .eml file written for a message (file mail), or null when there is none (SMTP, or not sent yet). */
async function mailFileOf(dir: string | null, messageId: string): Promise<string | null> {
  if (!dir) return null;
  try {
    const name = (await readdir(dir)).find((n) => messageIdOfFile(n) === messageId);
    return name ? join(dir, name) : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * `civic mail status|send|last|unsuppress`: see what is waiting in the outbox, send what is due now (e.g. from cron),
 * and read the newest message (from the outbox, so it works with SMTP and with .eml files alike).
 */
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
  "mail last": {
    summary: "Show the newest email: recipient, subject, text and its links",
    usage: "civic mail last",
    async run({ config, database, args, out, err }) {
      if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
      const mail = await database.db
        .selectFrom("outbox")
        .select([
          "to_address",
          "subject",
          "text_body",
          "message_id",
          "created_at",
          "sent_at",
          "failed_at",
          "last_error",
        ])
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (!mail) {
        err("No mail has been written yet.");
        return 1;
      }
      const file = await mailFileOf(mailFileDirectory(config), mail.message_id);
      out(`To: ${mail.to_address}`);
      out(`Subject: ${mail.subject}`);
      out(`Written: ${String(mail.created_at)}`);
      if (mail.sent_at !== null) out(`Status: sent at ${String(mail.sent_at)}`);
      else if (mail.failed_at !== null) out(`Status: failed for good: ${mail.last_error ?? ""}`);
      else out("Status: waiting to be sent");
      if (file) out(`File: ${file}`);
      out("");
      out(mail.text_body);
      const links = linksIn(mail.text_body);
      if (links.length > 0) {
        out("");
        out("Links:");
        for (const link of links) out(`  ${link}`);
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
