import { once } from "node:events";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * The checkpointer's thread: its own connection to the database file and a PASSIVE checkpoint every `everyMs`
 * (which copies committed pages from the WAL into the database file without waiting for or blocking anyone), until
 * the main thread says "close". Plain CommonJS run with `eval`, so it needs no file of its own next to the bundles.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = NORMAL");
db.pragma("secure_delete = ON");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
}, workerData.everyMs);
parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Pages the app's own connection lets the WAL grow to before it checkpoints itself (a backstop; 4 KiB pages). */
export const BACKSTOP_CHECKPOINT_PAGES = 10_000;

export interface CheckpointerOptions {
  /** Commits before the thread starts (small databases, tests and one-off commands never start it). */
  startAfter?: number;
  /** How often the thread checkpoints, ms. */
  everyMs?: number;
}

/**
 * SQLite checkpoints on a thread of their own. By default the connection that commits past 1,000 WAL pages copies
 * them into the database file and syncs it, on the event loop's thread: under a stream of reports that was ~10 % of
 * the process's time, in pauses of several milliseconds. The app's connection now checkpoints itself only as a
 * backstop (BACKSTOP_CHECKPOINT_PAGES, e.g. if this thread could not start), and once the process has committed
 * `startAfter` times a worker thread with its own connection checkpoints every `everyMs`. Durability is SQLite's
 * own: the WAL is synced before a checkpoint and the database file after it, whichever connection runs it.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  private commits = 0;
  /** Started once: a thread that fails is not started again (the backstop checkpoints from then on). */
  private started = false;
  private readonly startAfter: number;
  private readonly everyMs: number;

  constructor(
    private readonly file: string,
    options: CheckpointerOptions = {},
  ) {
    this.startAfter = options.startAfter ?? 200;
    this.everyMs = options.everyMs ?? 200;
  }

  /** True while the checkpointing thread runs. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Called after each commit of the app's connection. */
  noteCommit(): void {
    if (this.started || ++this.commits < this.startAfter) return;
    this.started = true;
    this.start();
  }

  private start(): void {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, everyMs: this.everyMs },
    });
    worker.on("message", (message: { error?: string }) => {
      if (message.error) process.emitWarning(`SQLite checkpoint failed: ${message.error}`);
    });
    worker.on("error", (error) => {
      process.emitWarning(`SQLite checkpoint thread stopped: ${String(error)}`);
      if (this.worker === worker) this.worker = null;
    });
    // Never keeps the process alive; the backstop checkpoints if the thread fails. After the listeners: adding a
    // "message" listener refs the thread again.
    worker.unref();
    this.worker = worker;
  }

  /** Stops the thread after its current checkpoint and closes its connection. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = once(worker, "exit");
    // Referenced again while it closes: an unreferenced thread's "exit" does not keep the process alive, so a
    // shutdown that awaited it could end the process with nothing left to run, before "stopped" was logged.
    worker.ref();
    worker.postMessage("close");
    await exited;
  }
}
