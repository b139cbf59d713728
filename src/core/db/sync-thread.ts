import { Worker } from "node:worker_threads";

/**
 * The thread's side: for each message `{ id, path }`, open the file, fdatasync it, close it, and answer `{ id }`, or
 * `{ id, error }` if that failed. A missing file holds nothing to sync. Plain CommonJS run with `eval`, so it needs no
 * file of its own next to the bundles (as the checkpointer's thread).
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
parentPort.on("message", ({ id, path }) => {
  try {
    let fd;
    try {
      fd = fs.openSync(path, "r");
    } catch (error) {
      if (error.code !== "ENOENT") throw error;
      parentPort.postMessage({ id });
      return;
    }
    try {
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error.message), code: error.code } });
  }
});
`;

interface Answer {
  id: number;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** An error from the sync thread, with the errno code (EIO, ENOSPC, …) it reported. */
export class SyncThreadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "SyncThreadError";
  }
}

/**
 * fdatasync on a thread of its own. The same work as `fdatasyncFile` (open, fdatasync, close), but where that takes
 * three trips through libuv's threadpool, each of whose completions waits for the event loop to be free, this takes
 * one message each way: under a stream of reports a sync of the WAL took 2.3-6 ms through the threadpool against
 * 0.5-1.4 ms for the fdatasync itself, and answers to 4 clients rose by ~45 % with the thread (bench/scale/README.md).
 *
 * The thread starts with the first sync, keeps the process alive only while a sync is pending (a command that has
 * finished exits), and is stopped by `close`. If it dies, the syncs pending reject (which WalSync treats as a failed
 * sync) and the next sync starts a new thread.
 */
export class SyncThread {
  private worker: Worker | null = null;
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();
  private drained: (() => void) | null = null;
  private closed = false;

  /** Makes `path`'s written data durable; resolves at once if it does not exist. A SyncFile (see wal-sync.ts). */
  readonly sync = (path: string): Promise<void> => {
    if (this.closed) return Promise.reject(new SyncThreadError("the sync thread is closed"));
    const worker = this.worker ?? this.start();
    const id = ++this.lastId;
    if (this.pending.size === 0) worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, path });
    });
  };

  /** True while the thread runs. */
  get running(): boolean {
    return this.worker !== null;
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on("message", (answer: Answer) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.settled(answer.id, worker);
      if (answer.error) waiting.reject(new SyncThreadError(answer.error.message, answer.error.code));
      else waiting.resolve();
    });
    const stopped = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      this.drained?.();
      for (const { reject } of waiting) reject(error);
    };
    worker.on("error", stopped);
    worker.on("exit", (code) => stopped(new SyncThreadError(`the sync thread exited with code ${code}`)));
    // After the listeners: adding a "message" listener refs the thread again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settled(id: number, worker: Worker): void {
    this.pending.delete(id);
    if (this.pending.size > 0) return;
    worker.unref();
    this.drained?.();
  }

  /** Lets the pending syncs finish, then stops the thread. Later syncs reject. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    if (this.pending.size > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    }
    this.worker = null;
    await worker.terminate();
  }
}
