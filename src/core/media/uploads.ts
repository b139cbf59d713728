import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Multipart, MultipartFile } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { unreadableBody } from "../http/errors.js";
import { AppError, isAppError } from "../http/errors.js";
import { assertCleanText } from "../http/input.js";
import { Slots } from "../limits/slots.js";

/**
 * Multipart uploads without buffering before the checks:
 * 1. A preValidation hook reads the text fields that come before the first file into `request.body` (a plain
 *    object of strings, like a urlencoded body) and stops there, leaving the file unread.
 * 2. The checks run on those fields (form token, API key, rate limits, in preHandler hooks). A refused request
 *    never reads its files.
 * 3. The handler calls `withUploads`, which takes a slot of a small per-process semaphore (503 with Retry-After when
 *    all are busy), streams each file to a size-capped temporary file under DATA_DIR/tmp/uploads, adds the fields
 *    that come after the files to `request.body`, runs the handler's work, and removes the files afterwards in
 *    every case: success, failure, or a client that went away half way.
 * 4. While it holds a slot, an upload must keep arriving at a minimum rate (UPLOAD_MIN_BYTES_PER_SECOND, averaged
 *    over every UPLOAD_RATE_WINDOW_SECONDS): a body that trickles in slower is stopped with 408, its slot freed at
 *    once, its temporary file removed and its connection closed, so a few stalled clients cannot hold every slot.
 * Clients must therefore send their fields (form token, api_key) before their files; browsers send a form's fields
 * in document order.
 */

/** Uploads streamed and processed at the same time per process; one more is answered 503 with Retry-After. */
export const MAX_CONCURRENT_UPLOADS = 4;
/** How long an upload waits for a free slot before the 503 (default of UPLOAD_WAIT_SECONDS). */
export const SLOT_WAIT_MS = 10_000;
/** Seconds a client is asked to wait when every upload slot is busy. */
const RETRY_AFTER_SECONDS = 5;
/** Defaults of UPLOAD_MIN_BYTES_PER_SECOND and UPLOAD_RATE_WINDOW_SECONDS (config.ts). */
export const MIN_BYTES_PER_SECOND = 1024;
export const RATE_WINDOW_MS = 10_000;
/** Leftover temporary files older than this (a crashed process) are removed at start. */
const STALE_MS = 60 * 60 * 1000;

/** A file received into the temporary store: read it (or hand its path to sharp) only inside `withUploads`. */
export interface ReceivedFile {
  field: string;
  filename: string;
  path: string;
  size: number;
}

interface PendingUpload {
  parts: AsyncIterator<Multipart>;
  /** The first file part, not read yet. */
  file: MultipartFile;
}

type FieldBody = Record<string, string | string[]>;

const pending = new WeakMap<FastifyRequest, PendingUpload>();
/** Uploads stopped for arriving too slowly: answered 408 and their connections closed. */
const stalled = new WeakSet<FastifyRequest>();
const filesHooks = new WeakMap<FastifyRequest, ((files: ReceivedFile[]) => Promise<void>)[]>();

/** Whether this request still has files to read: its body so far holds only the fields sent before them. */
export function hasPendingUploads(request: FastifyRequest): boolean {
  return pending.has(request);
}

/**
 * Runs `hook` once the request's files are in the temporary store and every field is in `request.body`, before
 * the route's work (see withUploads). For checks that need the whole submission, e.g. an Idempotency-Key's
 * fingerprint; a hook that throws ends the request with that error.
 */
export function whenFilesReceived(request: FastifyRequest, hook: (files: ReceivedFile[]) => Promise<void>): void {
  filesHooks.set(request, [...(filesHooks.get(request) ?? []), hook]);
}

function addField(body: FieldBody, name: string, value: string): void {
  const previous = body[name];
  if (previous === undefined) body[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else body[name] = [previous, value];
}

/** Reads parts into `body` up to the first file part, which is returned unread (or null at the end). */
async function readFieldsUntilFile(parts: AsyncIterator<Multipart>, body: FieldBody): Promise<MultipartFile | null> {
  for (;;) {
    const next = await parts.next();
    if (next.done) return null;
    const part = next.value;
    if (part.type === "file") return part;
    if (typeof part.value === "string") addField(body, part.fieldname, part.value);
  }
}

export interface UploadStore {
  /** Where temporary files live: DATA_DIR/tmp/uploads. */
  readonly dir: string;
  readonly slots: Slots;
  /** How long an upload waits for a slot. */
  readonly slotWaitMs: number;
  /** The minimum rate an upload holding a slot must keep, in bytes a second over every `rateWindowMs` (0: none). */
  readonly minBytesPerSecond: number;
  readonly rateWindowMs: number;
}

declare module "fastify" {
  interface FastifyInstance {
    uploadStore: UploadStore;
  }
}

async function removeStale(dir: string, now: number): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const name of entries) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}

/** Registers the field-reading hook and the temporary store. Call once, after @fastify/multipart. */
export async function registerUploads(
  app: FastifyInstance,
  options: {
    dataDir: string;
    maxConcurrent?: number;
    slotWaitMs?: number;
    minBytesPerSecond?: number;
    rateWindowMs?: number;
  },
): Promise<void> {
  const dir = join(options.dataDir, "tmp", "uploads");
  await removeStale(dir, Date.now());
  app.decorate("uploadStore", {
    dir,
    slots: new Slots(options.maxConcurrent ?? MAX_CONCURRENT_UPLOADS),
    slotWaitMs: options.slotWaitMs ?? SLOT_WAIT_MS,
    minBytesPerSecond: options.minBytesPerSecond ?? MIN_BYTES_PER_SECOND,
    rateWindowMs: options.rateWindowMs ?? RATE_WINDOW_MS,
  });
  // Synchronous for every request that is not multipart: this hook runs on the hot paths too.
  app.addHook("preValidation", (request, _reply, done) => {
    if (!request.isMultipart()) return done();
    const parts = request.parts()[Symbol.asyncIterator]();
    const body: FieldBody = {};
    readFieldsUntilFile(parts, body).then((file) => {
      request.body = body;
      if (file) pending.set(request, { parts, file });
      done();
    }, done);
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    if (pending.has(request) || stalled.has(request)) {
      reply.header("connection", "close");
      lingerThenClose(request);
    }
    done(null, payload);
  });
}

/** How much of a refused upload is read and dropped, at most, so the client can still read the answer. */
const LINGER_BYTES = 4 * 1024 * 1024;
const LINGER_MS = 2_000;

/**
 * A request answered before its files were read (refused by a check) is not read to the end: its connection is
 * closed. Closing a socket that still has unread data makes the kernel send a reset, which can destroy the answer
 * before the client reads it, so, like nginx's lingering close, the rest of the body is read and dropped for a
 * short while (at most LINGER_BYTES and LINGER_MS) after the answer is sent, then the connection is closed.
 */
function lingerThenClose(request: FastifyRequest): void {
  const raw = request.raw;
  raw.unpipe();
  let dropped = 0;
  raw.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) raw.destroy();
  });
  raw.on("error", () => {});
  raw.resume();
  const socket = raw.socket as (typeof raw.socket & { destroySoon?: () => void }) | null;
  if (socket && typeof socket.destroySoon === "function") {
    // Node calls destroySoon() once the answer is written: half-close instead, and destroy a little later.
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
  }
}

/** Streams one file part into `path`, refusing it when it is larger than the multipart file size limit. */
async function saveFile(part: MultipartFile, path: string): Promise<number> {
  let size = 0;
  part.file.on("data", (chunk: Buffer) => {
    size += chunk.length;
  });
  await pipeline(part.file, createWriteStream(path, { flags: "wx" }));
  if (part.file.truncated) {
    throw new AppError("payload_too_large", `The file “${part.filename.slice(0, 80)}” is too large.`);
  }
  return size;
}

/**
 * Watches the body of an upload that holds a slot: when fewer than `minBytesPerSecond × window` bytes arrived in a
 * window, calls `onStall` once. A window in which the body was paused by the server itself (back-pressure from the
 * disk) does not count. `stop()` ends the watch.
 */
function watchRate(request: FastifyRequest, store: UploadStore, onStall: () => void): () => void {
  if (store.minBytesPerSecond <= 0) return () => {};
  const raw = request.raw;
  const needed = (store.minBytesPerSecond * store.rateWindowMs) / 1000;
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
  };
  raw.on("data", count);
  const timer = setInterval(() => {
    const pausedByUs = raw.readableFlowing === false;
    if (received < needed && !pausedByUs && !raw.readableEnded) {
      stop();
      onStall();
    }
    received = 0;
  }, store.rateWindowMs);
  timer.unref();
  function stop() {
    clearInterval(timer);
    raw.off("data", count);
  }
  return stop;
}

/**
 * Receives the request's files (those whose field `accept`s) into the temporary store, adds the fields sent after
 * them to `request.body`, and runs `work` with them; the files are removed when `work` settles, whatever happens.
 * A request without files runs `work` at once with none. Files of other fields are read and dropped.
 */
export async function withUploads<T>(
  request: FastifyRequest,
  accept: (field: string) => boolean,
  work: (files: ReceivedFile[]) => Promise<T>,
): Promise<T> {
  const upload = pending.get(request);
  if (!upload) return work([]);
  const store = request.server.uploadStore;
  if (!(await store.slots.take(store.slotWaitMs))) {
    // Still pending: the answer closes the connection without reading the files.
    throw new AppError("service_unavailable", "Too many uploads at the moment. Please try again in a few seconds.", {
      headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
    });
  }
  pending.delete(request);
  const dir = join(store.dir, randomBytes(12).toString("hex"));
  let file: MultipartFile | null = upload.file;
  let stopWatch = () => {};
  const tooSlow = new Promise<never>((_resolve, reject) => {
    stopWatch = watchRate(request, store, () => {
      const error = new AppError(
        "request_timeout",
        "The upload arrived too slowly and was stopped. Please try again, if you can on a better connection.",
      );
      stalled.add(request);
      // Ends the file being written (its descriptor is closed) and whatever waits for the next part.
      file?.file.destroy(error);
      reject(error);
    });
  });
  try {
    await mkdir(dir, { recursive: true });
    const files: ReceivedFile[] = [];
    const body = (request.body ?? {}) as FieldBody;
    const receive = async () => {
      while (file) {
        if (accept(file.fieldname)) {
          const path = join(dir, String(files.length));
          const size = await saveFile(file, path);
          // A file input left empty still sends a part with no name and no bytes.
          if (size > 0 || file.filename) files.push({ field: file.fieldname, filename: file.filename, path, size });
        } else {
          file.file.resume();
        }
        file = await readFieldsUntilFile(upload.parts, body);
      }
    };
    const receiving = receive();
    // Settles later when the race is lost to a stall (the connection is closed after the 408).
    receiving.catch(() => {});
    try {
      await Promise.race([receiving, tooSlow]);
    } catch (error) {
      // A body cut short or otherwise malformed after the first file: busboy's errors carry no code.
      throw isAppError(error) || (error as { code?: unknown }).code ? error : unreadableBody(error);
    } finally {
      stopWatch();
    }
    // The fields sent after the files get the same input check as those before them (core/http/input.ts).
    assertCleanText(body);
    for (const hook of filesHooks.get(request) ?? []) await hook(files);
    return await work(files);
  } finally {
    store.slots.give();
    await rm(dir, { recursive: true, force: true });
  }
}
