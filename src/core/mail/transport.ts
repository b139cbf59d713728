import { randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { mailFileName } from "./mail-files.js";

/** One message as the transport needs it. */
export interface MailEnvelope {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** Stable Message-ID: a retried message is recognisably the same message. */
  messageId: string;
  date: Date;
  /** Extra headers (List-Unsubscribe, …). */
  headers?: Record<string, string>;
}

/** Delivers a message or throws. */
export interface MailTransport {
  readonly description: string;
  send(message: MailEnvelope): Promise<void>;
  close(): void;
}

function toNodemailer(m: MailEnvelope) {
  return {
    from: m.from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    ...(m.html ? { html: m.html } : {}),
    messageId: m.messageId,
    date: m.date,
    headers: { "Auto-Submitted": "auto-generated", ...m.headers },
  };
}

/** Sends through an SMTP server given as smtp://user:pass@host:port or smtps://…. */
export function smtpTransport(smtpUrl: string): MailTransport {
  // One connection kept open between messages (the worker sends one at a time), instead of a connection, a greeting
  // and EHLO (and TLS, on a real relay) per message; the pool closes it after 100 messages or when the server does.
  // Made on the first message after a close, so a worker stopped and started again sends through a new pool.
  const open = () =>
    nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: 1,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  let transporter: ReturnType<typeof open> | null = null;
  const url = new URL(smtpUrl);
  return {
    description: `SMTP ${url.hostname}:${url.port || (url.protocol === "smtps:" ? 465 : 25)}`,
    async send(message) {
      transporter ??= open();
      await transporter.sendMail(toNodemailer(message));
    },
    close() {
      transporter?.close();
      transporter = null;
    },
  };
}

/**
 * Writes each message as an .eml file under a directory (no SMTP server configured: development, demos). The file
 * is named after the message's date and Message-ID (mailFileName), so writing a message again replaces it instead
 * of duplicating it, and an erasure can find the files of the messages it deleted.
 */
export function fileTransport(dir: string): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `files in ${dir}`,
    async send(message) {
      const info = await composer.sendMail(toNodemailer(message));
      const data = info.message as Buffer;
      await mkdir(dir, { recursive: true });
      const name = mailFileName(message.messageId, message.date);
      const tmp = join(dir, `.${name}.${randomBytes(4).toString("hex")}.tmp`);
      await writeFile(tmp, data);
      await rename(tmp, join(dir, name));
    },
    close() {
      composer.close();
    },
  };
}
