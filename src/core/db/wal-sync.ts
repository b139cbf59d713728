import { type FileHandle, open } from "node:fs/promises";

/** Makes a file's written data durable (fdatasync); the file may not exist. */
export type SyncFile = (path: string) => Promise<void>;

/**
 * fdatasync of `path` in libuv's threadpool, so the event loop goes on serving while the disk works. The file is
 * opened each time: SQLite deletes the WAL when its last connection closes and creates it again, and an fd kept
 * from before would sync the old file. A missing WAL holds nothing: everything was checkpointed into the database
 * file, which SQLite syncs after each checkpoint.
 */
export async function fdatasyncFile(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Raised to every caller once a sync of the WAL has failed; the process makes no durability promise after it. */
export class WalSyncError extends Error {
  constructor(path: string, cause: unknown) {
    super(`could not sync ${path} to disk: writes are no longer acknowledged until the process restarts`, { cause });
    this.name = "WalSyncError";
  }
}

interface Waiters {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function waiters(): Waiters {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface WalSyncOptions {
  /** The sync itself (openDatabase passes its SyncThread's; tests slow it down or make it fail); fdatasyncFile by default. */
  sync?: SyncFile;
}

/**
 * Acknowledges SQLite commits once they are on disk, without blocking the event loop. The connection runs with
 * `synchronous = NORMAL`: a commit only writes the WAL (the page cache), so a power loss could take the newest
 * commits with it. `durable()` closes that gap for whoever must not answer before the disk has their writes: it
 * resolves once everything this process committed before the call is synced, by an fdatasync of the WAL off the
 * event loop (on the SyncThread that openDatabase gives it).
 *
 * Syncs are shared: at most one is in flight; callers arriving meanwhile whose commits it does not cover (it started
 * before them) all wait for one following sync, so under load a sync covers every commit of the time the previous
 * one took. With nothing committed since the last sync started, `durable()` needs no I/O.
 *
 * A failed sync is final, as PostgreSQL PANICs on a failed fsync rather than retry it: after a failed fsync Linux
 * may have dropped the dirty pages and marked them clean, so a retry can report success for data that never
 * reached the disk, and nobody can tell which commits are lost. Every caller waiting then, and every later one, is
 * rejected (their requests answer with an error, never a success), and `failed` turns the health checks red so the
 * process is restarted; reads are still served meanwhile.
 */
export class WalSync {
  private committed = 0;
  private synced = 0;
  private current: { upTo: number; done: Promise<void> } | null = null;
  private following: Waiters | null = null;
  private failure: WalSyncError | null = null;
  private readonly sync: SyncFile;

  constructor(
    /** The WAL: `${database file}-wal`. */
    readonly path: string,
    options: WalSyncOptions = {},
  ) {
    this.sync = options.sync ?? fdatasyncFile;
  }

  /** Called by the connection after each commit (see withStatementCache). */
  noteCommit(): void {
    this.committed++;
  }

  /** True once a sync has failed: no write is acknowledged any more. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Resolves once every commit made before this call is on disk; rejects if that cannot be promised. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const upTo = this.committed;
    if (upTo <= this.synced) return Promise.resolve();
    if (!this.current) return this.begin();
    if (upTo <= this.current.upTo) return this.current.done;
    this.following ??= waiters();
    return this.following.promise;
  }

  private begin(): Promise<void> {
    const upTo = this.committed;
    // Through a resolved promise, so that a sync function that throws at once still settles asynchronously,
    // after `current` is set.
    const done = Promise.resolve()
      .then(() => this.sync(this.path))
      .then(
        () => {
          this.synced = Math.max(this.synced, upTo);
        },
        (error: unknown) => {
          this.failure ??= new WalSyncError(this.path, error);
          throw this.failure;
        },
      )
      .finally(() => this.next());
    this.current = { upTo, done };
    return done;
  }

  /** The sync in flight has settled: the callers who arrived meanwhile get one sync of their own. */
  private next(): void {
    this.current = null;
    const waiting = this.following;
    this.following = null;
    if (!waiting) return;
    if (this.failure) waiting.reject(this.failure);
    else this.begin().then(waiting.resolve, waiting.reject);
  }
}
