import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import type { Bindings, ChildLoggerOptions } from "fastify/types/logger.js";
import { fstatSync, writeSync } from "node:fs";
import pino from "pino";
import type { LogLevel } from "../../config.js";
import { forLog, MAX_LOGGED_STACK_CHARS, redactDeep } from "./redact.js";
import { errorWithoutSecrets, loggableUrl } from "./secret-paths.js";

/** How long a log line may wait for others before the batch is written. */
export const FLUSH_MS = 2;
/** Characters in a batch that make it written at once. */
const BATCH_CHARS = 64 * 1024;

/**
 * Log lines for stdout, written in one batch every FLUSH_MS (or every 64 KB) instead of one write system call per
 * line: under load, the write was most of a line's cost, and a batch per turn of the event loop still made a write
 * for every few requests (bench/businesses: writing every 2 ms instead cut a 304's CPU time by a tenth). Writes to
 * stdout are synchronous on Linux (files and pipes), and the batch is written when the process exits, crashes
 * included, so a line can only be lost to `kill -9`, within the 2 ms before it.
 */
export class BatchedStdout {
  /** The lines of this batch, appended to one string (cheaper than a list joined at the end). */
  private pending = "";
  private scheduled = false;

  constructor(private readonly out: { write(chunk: string): unknown } = stdoutWriter()) {
    process.on("exit", this.flush);
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= BATCH_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flush, FLUSH_MS).unref();
    }
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending === "") return;
    const chunk = this.pending;
    this.pending = "";
    this.out.write(chunk);
  };
}

/**
 * Where the batches go: process.stdout, or, when stdout is a regular file (a process manager's log file), the file
 * itself through fs.writeSync. process.stdout is then a stream that writes synchronously anyway, but first copies
 * each batch into a Buffer in JavaScript; fs.writeSync encodes the string in one native call. Pipes, sockets and
 * terminals keep process.stdout, which writes strings natively already.
 */
export function stdoutWriter(): { write(chunk: string): unknown } {
  let file = false;
  try {
    file = fstatSync(1).isFile();
  } catch {
    // No stdout (closed): process.stdout copes with that.
  }
  return file ? { write: (chunk: string) => writeSync(1, chunk) } : process.stdout;
}

let stdoutSink: BatchedStdout | undefined;

/**
 * Structured JSON logs (pino) on stdout, written in batches (BatchedStdout), with email addresses and secret parameters
 * (`api_key=…`) redacted from every message, object and URL, the secrets routes declare in their addresses (link
 * tokens, core/http/secret-paths.ts) redacted from every URL, every string bounded in length, and without request
 * headers or bodies.
 */
export function loggerOptions(level: LogLevel): FastifyServerOptions["logger"] {
  stdoutSink ??= new BatchedStdout();
  return {
    level,
    stream: stdoutSink,
    hooks: {
      logMethod(args, method) {
        const clean = args.map((a) =>
          typeof a === "string" ? forLog(a) : a instanceof AccessLine ? a : redactFields(a),
        ) as typeof args;
        method.apply(this, clean);
      },
    },
    serializers: {
      req(req: { method?: string; url?: string; id?: string }) {
        // Fastify's own lines pass its request, whose route may declare a secret in its address.
        const url = req.url === undefined ? "" : loggableUrl(req as FastifyRequest, true);
        return { id: req.id, method: req.method, url: forLog(url) };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
      err(err: Error & { code?: string; statusCode?: number }) {
        return {
          type: err.name,
          code: err.code,
          statusCode: err.statusCode,
          message: forLog(err.message ?? ""),
          stack: forLog(err.stack ?? "", MAX_LOGGED_STACK_CHARS),
        };
      },
    },
  };
}

/**
 * The fields of the access line, already redacted and bounded (the logMethod hook passes it through as is). `reqId`
 * is set when the line goes through the app's logger rather than the request's child logger, which has it among
 * its bindings; pino leaves out undefined fields, so both give the same JSON.
 */
class AccessLine {
  constructor(
    readonly reqId: string | undefined,
    readonly method: string,
    readonly url: string,
    readonly statusCode: number,
    readonly responseTime: number,
    readonly err?: Error,
  ) {}
}

/**
 * A request's logger (`request.log`) that makes pino's child logger only when something is logged through it.
 * Fastify makes a child per request to add the request id to its lines; most requests log nothing but their access
 * line, which AccessLogController writes through the app's logger with the request id as its first field, the same
 * JSON as the child would write. Making the child (and serialising its bindings) was an eighth of the CPU time of a
 * 304 (bench/businesses).
 */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** pino's child logger, made on first use. */
  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.logger.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    Reflect.apply(this.logger.fatal, this.logger, args);
  }

  error(...args: unknown[]): void {
    Reflect.apply(this.logger.error, this.logger, args);
  }

  warn(...args: unknown[]): void {
    Reflect.apply(this.logger.warn, this.logger, args);
  }

  info(...args: unknown[]): void {
    Reflect.apply(this.logger.info, this.logger, args);
  }

  debug(...args: unknown[]): void {
    Reflect.apply(this.logger.debug, this.logger, args);
  }

  trace(...args: unknown[]): void {
    Reflect.apply(this.logger.trace, this.logger, args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  /**
   * Whether a line must go through pino's child logger: once it is made (its bindings could have changed), or when
   * the route has its own log level or serializers.
   */
  private get throughChild(): boolean {
    return this.made !== undefined || this.options.level !== undefined || this.options.serializers !== undefined;
  }

  /**
   * Writes an info access line by hand, in pino's format, when nothing needs pino's own serialisation: not through
   * the child, and the app's logger configured as loggerOptions() configures it. False when the line must go through
   * pino instead (access()).
   */
  accessInfo(method: string, url: string, statusCode: number, elapsed: number): boolean {
    if (this.throughChild) return false;
    const reqId = this.bindings.reqId;
    if (typeof reqId !== "string") return false;
    const plain = plainPino(this.parent);
    if (!plain) return false;
    plain.write(reqId, method, url, statusCode, elapsed);
    return true;
  }

  /**
   * Writes the access line through pino: through the child, whose bindings carry the request id, or through the app's
   * logger with the request id as the line's first field.
   */
  access(
    level: "info" | "error",
    method: string,
    url: string,
    statusCode: number,
    responseTime: number,
    err: Error | undefined,
  ): void {
    const child = this.throughChild;
    const reqId = child ? undefined : this.bindings.reqId;
    const line = new AccessLine(
      typeof reqId === "string" ? reqId : undefined,
      method,
      url,
      statusCode,
      responseTime,
      err,
    );
    (child ? this.logger : this.parent)[level](line, "request");
  }
}

/** What writing an access line by hand needs of a pino logger configured as loggerOptions() configures it. */
interface PlainPino {
  /** Writes the line if the logger's level lets `info` lines through. */
  write(reqId: string, method: string, url: string, statusCode: number, elapsed: number): void;
}

const S = pino.symbols;
/** pino's internals that the line by hand reads, by their (exported) symbols. */
interface PinoInternals {
  [S.chindingsSym]: unknown;
  [S.levelValSym]: unknown;
  [S.streamSym]: unknown;
  [S.formattersSym]: unknown;
  [S.hooksSym]: unknown;
  [S.stringifiersSym]: unknown;
  [S.timeSym]: unknown;
  [S.messageKeySym]: unknown;
  [S.mixinSym]: unknown;
}
let plainFor: FastifyBaseLogger | undefined;
let plain: PlainPino | null = null;

/** Characters that JSON.stringify writes escaped: quote, backslash, controls, and surrogates (when unpaired). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON of a string: JSON.stringify's output, without calling it when nothing in the string needs escaping. */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * `Math.round(ms * 100) / 100` as JSON writes it (the response time in the access line), from integers: the same
 * digits as the number's own shortest form, which for hundredths is the decimal with its trailing zeros dropped.
 */
export function hundredths(ms: number): string {
  const n = Math.round(ms * 100);
  if (!(n >= 0 && n < 2 ** 30)) return JSON.stringify(n / 100);
  const whole = (n / 100) | 0;
  const cents = n - whole * 100;
  if (cents === 0) return `${whole}`;
  if (cents % 10 === 0) return `${whole}.${cents / 10}`;
  return `${whole}.${cents < 10 ? "0" : ""}${cents}`;
}

/**
 * The access line written without pino's generic serialisation, when the logger is a pino logger with the options
 * loggerOptions() gives (default time, message key, no mixin or formatters): the same bytes pino would write for an
 * AccessLine with the request id (tested against pino's own line), at a fraction of the cost. Null otherwise, and the
 * line goes through pino. Kept for the last logger asked (the app's).
 */
export function plainPino(logger: FastifyBaseLogger): PlainPino | null {
  if (logger === plainFor) return plain;
  plainFor = logger;
  plain = null;
  const internals = logger as unknown as PinoInternals;
  const stream = internals[S.streamSym] as { write?: unknown } | undefined;
  const formatters = internals[S.formattersSym] as { level?: unknown; log?: unknown } | undefined;
  const hooks = internals[S.hooksSym] as { streamWrite?: unknown } | undefined;
  const stringifiers = internals[S.stringifiersSym];
  if (
    typeof internals[S.chindingsSym] !== "string" ||
    typeof internals[S.levelValSym] !== "number" ||
    typeof stream?.write !== "function" ||
    internals[S.timeSym] !== pino.stdTimeFunctions.epochTime ||
    internals[S.messageKeySym] !== "msg" ||
    internals[S.mixinSym] ||
    hooks?.streamWrite !== undefined ||
    // pino's default formatters (the level as a number, no log formatter) and no redaction paths.
    formatters === undefined ||
    formatters.log !== undefined ||
    typeof formatters.level !== "function" ||
    JSON.stringify((formatters.level as (label: string, value: number) => unknown)("info", 30)) !== '{"level":30}' ||
    (typeof stringifiers === "object" && stringifiers !== null && Object.keys(stringifiers).length > 0)
  ) {
    return null;
  }
  const out = stream as { write(line: string): unknown };
  plain = {
    write(reqId, method, url, statusCode, elapsed) {
      // The level and the bindings are read each time: `log.level = …` and pino's setBindings() change them.
      if ((internals[S.levelValSym] as number) > 30) return;
      // The request id and the method need no escaping (the id is checked in app.ts, and a method is a token), but
      // a given genReqId or an injected request could differ, so both go through jsonString's check too.
      out.write(
        `{"level":30,"time":${Date.now()}${internals[S.chindingsSym] as string},"reqId":${jsonString(reqId)},"method":${jsonString(method)},"url":${jsonString(forLog(url))},"statusCode":${statusCode},"responseTime":${hundredths(elapsed)},"msg":"request"}\n`,
      );
    },
  };
  return plain;
}

/** Fastify's `childLoggerFactory`: a RequestLogger per request. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}

/** How often the counts of 304 answers are logged (LOG_NOT_MODIFIED=summary). */
export const NOT_MODIFIED_SUMMARY_MS = 60_000;
/** Distinct method-and-path pairs counted in one summary; the others are counted together under `other`. */
export const NOT_MODIFIED_MAX_PATHS = 100;

/**
 * 304 answers counted per method and path, logged as one line a minute: `{"notModified": [{method, path, count}],
 * "count", "msg": "not modified"}`. A 304 is the cheapest answer the platform gives, to clients that poll (feed
 * readers, Open311 and directory mirrors, the installed app), and a line of its own was about a tenth of its CPU
 * time (bench/businesses); the count keeps the traffic visible, and the reverse proxy's access log, where there is
 * one, still has every request. Paths without their query; at most NOT_MODIFIED_MAX_PATHS of them per summary.
 */
export class NotModifiedTally {
  private counts = new Map<string, { method: string; path: string; count: number }>();
  private total = 0;
  private log: FastifyBaseLogger | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs = NOT_MODIFIED_SUMMARY_MS) {}

  count(log: FastifyBaseLogger, method: string, url: string): void {
    this.log = log;
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const key = `${method} ${path}`;
    let entry = this.counts.get(key);
    if (entry === undefined) {
      const full = this.counts.size >= NOT_MODIFIED_MAX_PATHS;
      entry = full ? this.counts.get("other") : undefined;
      if (entry === undefined) {
        entry = full ? { method: "*", path: "other", count: 0 } : { method, path: forLog(path), count: 0 };
        this.counts.set(full ? "other" : key, entry);
      }
    }
    entry.count++;
    this.total++;
    this.timer ??= setTimeout(this.write, this.everyMs).unref();
  }

  /** Logs the counts since the last summary, if any (also when the app closes). */
  readonly write = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.total === 0 || !this.log) return;
    const notModified = [...this.counts.values()];
    const count = this.total;
    this.counts = new Map();
    this.total = 0;
    this.log.info({ notModified, count }, "not modified");
  };
}

/**
 * One access line per request instead of Fastify's two ("incoming request" and "request completed", each through
 * the serializers): `{reqId, method, url, statusCode, responseTime, msg: "request"}`, written when the response is
 * finished, at `error` for 5xx and otherwise at `info`. The URL is bounded and redacted (emails, `api_key` and
 * other secret parameters, and the path segments that hold a secret its route declares, or, for an error, that look
 * like one: core/http/secret-paths.ts). Fastify's own "Route … not found" line is dropped: the access line records
 * the 404.
 * 304 answers are counted and summarised (NotModifiedTally) unless `notModified: "each"`.
 */
export class AccessLogController extends LogController {
  private readonly tally: NotModifiedTally | undefined;

  constructor(options: { notModified?: "summary" | "each" } = {}) {
    super();
    this.tally = options.notModified === "each" ? undefined : new NotModifiedTally();
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  /** Logs the counts of 304 answers now (the app calls it when it closes). */
  writeNotModified(): void {
    this.tally?.write();
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const log = reply.log;
    // A route without a secret in its address costs one property read here (request.secrets, unset); an error
    // may come from no route at all, and is checked against the routes that have one.
    const address = loggableUrl(request, (status >= 300 && status !== 304) || !!error);
    if (status === 304 && !error && this.tally) {
      this.tally.count(request.server.log, request.method, address);
      return;
    }
    const level = error || status >= 500 ? "error" : "info";
    if (level === "info" && log instanceof RequestLogger) {
      if (log.accessInfo(request.method, address, status, reply.elapsedTime)) return;
    }
    const url = forLog(address);
    const responseTime = Math.round(reply.elapsedTime * 100) / 100;
    const err = error ? errorWithoutSecrets(request, error) : undefined;
    if (log instanceof RequestLogger) log.access(level, request.method, url, status, responseTime, err);
    else log[level](new AccessLine(undefined, request.method, url, status, responseTime, err), "request");
  }
}

/** Objects the serializers above handle are left to them; every other field is redacted deeply. */
const SERIALIZED = new Set(["req", "res", "err"]);
function redactFields(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Error) {
    return redactDeep(value);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SERIALIZED.has(k) ? v : redactDeep(v);
  return out;
}
