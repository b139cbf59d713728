import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

const NAME = /^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)-([A-Za-z0-9_-]+)\.eml$/;
const BATCH = 500;

/**
 * The name of a message's .eml file (file mail, no SMTP_URL): its date, for sorting, and its Message-ID, encoded so
 * that the file can be matched to its outbox row again (eraseMailFilesWithoutMessage). Writing a message again
 * replaces its file.
 */
export function mailFileName(messageId: string, date: Date): string {
  return `${date.toISOString().replace(/[:.]/g, "-")}-${Buffer.from(messageId).toString("base64url")}.eml`;
}

/** The Message-ID a file name made by mailFileName stands for; null for any other name. */
export function messageIdOfFile(name: string): string | null {
  const encoded = NAME.exec(name)?.[2];
  return encoded ? Buffer.from(encoded, "base64url").toString() : null;
}

/**
 * Deletes the .eml files under `dir` whose message is no longer in the outbox: after an erasure deleted the messages
 * to and about a person (core/mail/erase.ts), their written copies go too. Files of other names are left alone.
 * Returns how many went.
 */
export async function eraseMailFilesWithoutMessage(db: Kysely<DB>, dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  const files = names.flatMap((name) => {
    const messageId = messageIdOfFile(name);
    return messageId ? [{ name, messageId }] : [];
  });
  let erased = 0;
  for (let i = 0; i < files.length; i += BATCH) {
    const batch = files.slice(i, i + BATCH);
    const rows = await db
      .selectFrom("outbox")
      .select("message_id")
      .where(
        "message_id",
        "in",
        batch.map((f) => f.messageId),
      )
      .execute();
    const kept = new Set(rows.map((r) => r.message_id));
    for (const f of batch) {
      if (kept.has(f.messageId)) continue;
      await unlink(join(dir, f.name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      erased++;
    }
  }
  return erased;
}
