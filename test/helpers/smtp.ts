import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A message as the in-test SMTP server received it. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

/** A real SMTP server for tests (no TLS, no auth), keeping what it receives. */
export interface TestSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** Resolves when at least `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * How the server answers: `refuse` maps a recipient address to an SMTP code (e.g. 550 for "no such user");
 * `refuseData` refuses every message after its content was sent (e.g. 554 "looks like spam"). `onReceived` runs for
 * each message after it is kept and before the server answers the client's DATA (a crash test kills the sender there).
 */
export interface TestSmtpOptions {
  refuse?: Record<string, number>;
  refuseData?: number;
  onReceived?: (mail: ReceivedMail) => void;
}

/** Starts an SMTP server on 127.0.0.1 (on `port`, or a free one). */
export async function startTestSmtp(
  port = 0,
  received: ReceivedMail[] = [],
  options: TestSmtpOptions = {},
): Promise<TestSmtp> {
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = options.refuse?.[address.address.toLowerCase()];
      if (code === undefined) return callback();
      const error = Object.assign(new Error(`Mailbox ${address.address} refused`), { responseCode: code });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (options.refuseData) {
          return callback(Object.assign(new Error("Message refused"), { responseCode: options.refuseData }));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw, parsed };
            received.push(mail);
            options.onReceived?.(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const started = Date.now();
      while (received.length < count) {
        if (Date.now() - started > timeoutMs) {
          throw new Error(`expected ${count} messages, got ${received.length} in ${timeoutMs} ms`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
