import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./database.js";
import type { DB } from "./schema.js";

type Work<T> = (tx: Transaction<DB>) => Promise<T>;

interface Job {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for SQLite. Writes handed to `run` in the same turn of the event loop (e.g. several clients' reports
 * parsed from the same batch of sockets) are made in one transaction, each inside its own savepoint, and committed
 * together. better-sqlite3 runs every statement on the event loop's thread, and each COMMIT writes every page it
 * changed to the WAL: one COMMIT for the group writes the reports table's and its indexes' pages (mostly the same ones
 * for all its reports) once, and the answers then share one fdatasync of the WAL (the connection runs with
 * `synchronous=NORMAL`; answers to write requests wait for WalSync, see wal-sync.ts, so a 201 still means "on disk").
 * No `run` settles before the commit that holds its writes returned. A work that throws is rolled back to its savepoint
 * and rejects alone; a failed commit rejects every work of the group (nothing of any of them was stored). A lone write
 * runs in a plain transaction, as without the group.
 */
export class CommitGroup {
  private queue: Job[] = [];
  private scheduled = false;
  private running = false;

  constructor(private readonly db: Kysely<DB>) {}

  /** Runs `work` in a transaction shared with the other works queued in the same turn; settles after the commit. */
  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // After the I/O callbacks of this turn: every request read in it has queued its write by then.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const jobs = this.queue;
    this.queue = [];
    try {
      if (jobs.length === 1 && jobs[0]) await this.alone(jobs[0]);
      else await this.together(jobs);
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async alone(job: Job): Promise<void> {
    try {
      job.resolve(await this.db.transaction().execute(job.work));
    } catch (error) {
      job.reject(error);
    }
  }

  private async together(jobs: Job[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await this.db.transaction().execute(async (tx) => {
        for (const job of jobs) {
          await sql`savepoint commit_group`.execute(tx);
          try {
            const value = await job.work(tx);
            await sql`release commit_group`.execute(tx);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await sql`rollback to commit_group`.execute(tx);
            await sql`release commit_group`.execute(tx);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome ? outcome.error : new Error("commit group: no outcome"));
    });
  }
}

const groups = new WeakMap<Kysely<DB>, CommitGroup>();

/**
 * Runs `work` in a transaction that is committed before this settles: on SQLite through the database's commit group
 * (see CommitGroup), on PostgreSQL in a transaction of its own (its server already flushes concurrent commits
 * together, and each pool connection commits on its own).
 */
export function inCommittedTransaction<T>(database: Database, work: Work<T>): Promise<T> {
  if (database.dialect === "postgres") return database.db.transaction().execute(work);
  let group = groups.get(database.db);
  if (!group) {
    group = new CommitGroup(database.db);
    groups.set(database.db, group);
  }
  return group.run(work);
}
