import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";
import type { Worker } from "../context.js";
import type { DB, OutboxMessage } from "../db/schema.js";
import { isSuppressed, suppressAddress } from "./suppressions.js";
import type { MailTransport } from "./transport.js";

export interface OutboxWorkerOptions {
  db: Kysely<DB>;
  transport: MailTransport;
  from: string;
  now: () => Date;
  log?: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
  /** How often to look for due messages, ms. */
  pollMs?: number;
  /** How long a claimed message stays locked to this worker, ms (a crashed worker's claim expires after it). */
  lockMs?: number;
  /** Messages per round. */
  batchSize?: number;
}

/** Delay before the next attempt after `attempts` failures: 30 s, 1 min, 2 min, … capped at 1 hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(attempts - 1, 0), 60 * 60 * 1000);
}

/** A message that still fails after this many attempts, or would be retried later than GIVE_UP_MS after it was queued, is marked failed. */
export const MAX_ATTEMPTS = 60;
export const GIVE_UP_MS = 48 * 60 * 60 * 1000;

/**
 * How a failed send is handled. An SMTP 5xx for the recipient (at RCPT TO) is final and suppresses the address; a
 * 5xx for the message (at DATA) is final for that message only. Everything else is retried: connection errors, 4xx,
 * and 5xx before any recipient was named (AUTH, MAIL FROM), which mean our SMTP settings are wrong, not the message.
 */
export function classifyFailure(error: unknown): "retry" | "message-refused" | "recipient-refused" {
  const e = error as { responseCode?: unknown; command?: unknown };
  const code = typeof e.responseCode === "number" ? e.responseCode : 0;
  if (code < 500 || code > 599) return "retry";
  if (e.command === "RCPT TO") return "recipient-refused";
  if (e.command === "DATA") return "message-refused";
  return "retry";
}

const iso = (d: Date, plusMs = 0) => new Date(d.getTime() + plusMs).toISOString();

/**
 * Claims one message for sending: a compare-and-set on `locked_until`, so of several workers (or a restarted
 * process) only one holds a message at a time. Returns the claimed row, or null when another worker was faster.
 */
export async function claimMessage(
  db: Kysely<DB>,
  id: number,
  now: Date,
  lockMs: number,
): Promise<OutboxMessage | null> {
  const at = iso(now);
  const result = await db
    .updateTable("outbox")
    .set((eb) => ({ locked_until: iso(now, lockMs), attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .where("sent_at", "is", null)
    .where("failed_at", "is", null)
    .where("next_attempt_at", "<=", at)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", at)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  return (await db.selectFrom("outbox").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/** Ids of messages that are due and not held by a worker, oldest first. */
export async function dueMessageIds(db: Kysely<DB>, now: Date, limit: number): Promise<number[]> {
  const at = iso(now);
  const rows = await db
    .selectFrom("outbox")
    .select("id")
    .where("sent_at", "is", null)
    .where("failed_at", "is", null)
    .where("next_attempt_at", "<=", at)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", at)]))
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** An error message fit for the outbox table: short, and without the addresses the SMTP server may echo. */
function safeError(error: unknown): string {
  const e = error as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [
    typeof e.code === "string" ? e.code : null,
    typeof e.responseCode === "number" ? String(e.responseCode) : null,
    typeof e.message === "string" ? e.message : String(error),
  ].filter(Boolean);
  return parts
    .join(" ")
    .replace(/[^\s<>@]+@[^\s<>@]+/g, "[address]")
    .slice(0, 500);
}

/**
 * The outbox worker: sends due messages through the transport, one at a time, and marks each sent exactly once
 * (`sent_at` is only set while it is null). A failure schedules a retry with backoff until MAX_ATTEMPTS or GIVE_UP_MS
 * (then `failed_at` is set), a permanent refusal fails at once (see classifyFailure); a crash while sending leaves
 * the message locked only until `locked_until`, after which it is retried. Delivery is therefore at least once and,
 * because the Message-ID is stable, recognisable as the same message if a retry follows an unrecorded success.
 */
export class OutboxWorker implements Worker {
  readonly name = "mail-outbox";
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = true;
  private stopRequested = false;
  private readonly pollMs: number;
  private readonly lockMs: number;
  private readonly batchSize: number;

  constructor(private readonly options: OutboxWorkerOptions) {
    this.pollMs = options.pollMs ?? 5_000;
    this.lockMs = options.lockMs ?? 2 * 60_000;
    this.batchSize = options.batchSize ?? 20;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopRequested = false;
    this.options.log?.info(`mail outbox: sending through ${this.options.transport.description}`);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
    this.options.transport.close();
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runOnce()
        .catch((error: unknown) => this.options.log?.error({ err: error }, "mail outbox round failed"))
        .finally(() => this.schedule(this.pollMs));
    }, delay);
    this.timer.unref();
  }

  /** Sends every message that is due now. Returns how many were sent. Safe to call concurrently with other workers. */
  runOnce(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<number> {
    const { db } = this.options;
    let sent = 0;
    for (;;) {
      const ids = await dueMessageIds(db, this.options.now(), this.batchSize);
      if (ids.length === 0) return sent;
      let progressed = false;
      for (const id of ids) {
        if (this.stopRequested) return sent;
        const message = await claimMessage(db, id, this.options.now(), this.lockMs);
        if (!message) continue;
        progressed = true;
        if (await this.deliver(message)) sent++;
      }
      if (!progressed) return sent;
    }
  }

  /** Marks a message as never to be sent. */
  private async fail(message: OutboxMessage, reason: string): Promise<void> {
    const at = iso(this.options.now());
    await this.options.db
      .updateTable("outbox")
      .set({ locked_until: null, last_error: reason, failed_at: at })
      .where("id", "=", message.id)
      .where("sent_at", "is", null)
      .execute();
    this.options.log?.warn({ outboxId: message.id, kind: message.kind, attempts: message.attempts }, "mail failed");
  }

  private async deliver(message: OutboxMessage): Promise<boolean> {
    const { db, transport } = this.options;
    if (await isSuppressed(db, message.to_address)) {
      await this.fail(message, "not sent: the address refused earlier mail permanently (suppressed)");
      return false;
    }
    try {
      await transport.send({
        from: this.options.from,
        to: message.to_address,
        subject: message.subject,
        text: message.text_body,
        html: message.html_body,
        messageId: message.message_id,
        date: new Date(message.created_at),
        ...(message.headers ? { headers: JSON.parse(message.headers) as Record<string, string> } : {}),
      });
    } catch (error) {
      const now = this.options.now();
      const outcome = classifyFailure(error);
      const nextAt = now.getTime() + retryDelayMs(message.attempts);
      if (outcome === "recipient-refused") {
        const e = error as { responseCode?: number };
        await suppressAddress(db, message.to_address, `${e.responseCode ?? 5} at RCPT TO`, now);
      }
      if (
        outcome !== "retry" ||
        message.attempts >= MAX_ATTEMPTS ||
        nextAt - new Date(message.created_at).getTime() > GIVE_UP_MS
      ) {
        await this.fail(message, safeError(error));
        return false;
      }
      await db
        .updateTable("outbox")
        .set({ locked_until: null, last_error: safeError(error), next_attempt_at: new Date(nextAt).toISOString() })
        .where("id", "=", message.id)
        .where("sent_at", "is", null)
        .execute();
      this.options.log?.warn(
        { outboxId: message.id, kind: message.kind, attempts: message.attempts },
        "mail not sent yet; will retry",
      );
      return false;
    }
    await db
      .updateTable("outbox")
      .set({ sent_at: iso(this.options.now()), locked_until: null, last_error: null })
      .where("id", "=", message.id)
      .where("sent_at", "is", null)
      .execute();
    this.options.log?.info({ outboxId: message.id, kind: message.kind }, "mail sent");
    return true;
  }
}
