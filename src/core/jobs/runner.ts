import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";
import type { Worker } from "../worker.js";
import type { DB } from "../db/schema.js";

/** What a job gets when it runs. */
export interface JobContext {
  /** The time the run was claimed (the app's clock). */
  now: Date;
  /** Aborted when the process stops: a job works in bounded batches and returns early when this is set. */
  signal: AbortSignal;
  /** The process's logger, when it has one: a job logs what an operator needs to know, never secrets. */
  log?: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
}

/** A periodic job: run once per interval by one of the processes sharing the database. */
export interface Job {
  name: string;
  intervalMs: number;
  /** How long a run may take before another process may take the job over (renewed while the run lasts). */
  leaseMs?: number;
  /** Returns figures worth logging (e.g. rows deleted), or nothing. */
  run(context: JobContext): Promise<Record<string, number> | undefined>;
}

export interface JobRunnerOptions {
  db: Kysely<DB>;
  jobs: Job[];
  now: () => Date;
  log?: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
  /** How often to look for due jobs, ms. */
  pollMs?: number;
  /** Names this process in lease rows. */
  owner?: string;
}

const DEFAULT_LEASE_MS = 10 * 60_000;
const iso = (d: Date, plusMs = 0) => new Date(d.getTime() + plusMs).toISOString();

/** Makes sure the job has a lease row; a new job is due at once. */
async function ensureLeaseRow(db: Kysely<DB>, name: string, now: Date): Promise<void> {
  await db
    .insertInto("job_leases")
    .values({ name, next_run_at: iso(now) })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
}

/**
 * Claims a due job for `owner`: a compare-and-set on the lease row, so of several processes exactly one wins, and
 * the next run is due one interval after this claim. Returns false when the job is not due or another process
 * holds it.
 */
export async function claimJob(db: Kysely<DB>, job: Job, owner: string, now: Date): Promise<boolean> {
  const at = iso(now);
  const result = await db
    .updateTable("job_leases")
    .set({
      lease_owner: owner,
      leased_until: iso(now, job.leaseMs ?? DEFAULT_LEASE_MS),
      last_started_at: at,
      next_run_at: iso(now, job.intervalMs),
    })
    .where("name", "=", job.name)
    .where("next_run_at", "<=", at)
    .where((eb) => eb.or([eb("leased_until", "is", null), eb("leased_until", "<", at)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Runs periodic jobs. Runs are claimed through lease rows in `job_leases` (no advisory locks, no LISTEN/NOTIFY),
 * so with several processes on one PostgreSQL each job runs once per interval. A process that dies mid-run holds
 * its lease only until `leased_until`; then the job is due again at its next interval. Stopping aborts the
 * running job, waits for it and releases this process's leases; an interrupted job is due again at once, so
 * another process carries on.
 */
export class JobRunner implements Worker {
  readonly name = "jobs";
  readonly owner: string;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;
  private stopped = true;
  private abort = new AbortController();

  constructor(private readonly options: JobRunnerOptions) {
    this.pollMs = options.pollMs ?? 60_000;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => []);
    await this.options.db
      .updateTable("job_leases")
      .set({ lease_owner: null, leased_until: null })
      .where("lease_owner", "=", this.owner)
      .execute()
      .catch((error: unknown) => this.options.log?.error({ err: error }, "jobs: could not release leases"));
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runDue()
        .catch((error: unknown) => this.options.log?.error({ err: error }, "jobs: round failed"))
        .finally(() => this.schedule(this.pollMs));
    }, delay);
    this.timer.unref();
  }

  /** Runs every job that is due and not held by another process. Returns the names of the jobs this call ran. */
  runDue(): Promise<string[]> {
    if (this.running) return this.running;
    this.running = this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<string[]> {
    const { db } = this.options;
    const ran: string[] = [];
    for (const job of this.options.jobs) {
      if (this.abort.signal.aborted) break;
      const now = this.options.now();
      await ensureLeaseRow(db, job.name, now);
      if (!(await claimJob(db, job, this.owner, now))) continue;
      ran.push(job.name);
      await this.runClaimed(job, now);
    }
    return ran;
  }

  private async runClaimed(job: Job, startedAt: Date): Promise<void> {
    const { db, log } = this.options;
    const leaseMs = job.leaseMs ?? DEFAULT_LEASE_MS;
    const renew = setInterval(() => {
      db.updateTable("job_leases")
        .set({ leased_until: iso(this.options.now(), leaseMs) })
        .where("name", "=", job.name)
        .where("lease_owner", "=", this.owner)
        .execute()
        .catch(() => {});
    }, leaseMs / 3);
    renew.unref();
    let error: string | null = null;
    try {
      const figures = await job.run({ now: startedAt, signal: this.abort.signal, log });
      log?.info({ job: job.name, ...figures }, "job finished");
    } catch (e) {
      error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
      log?.error({ job: job.name, err: e }, "job failed");
    } finally {
      clearInterval(renew);
    }
    const interrupted = this.abort.signal.aborted;
    await db
      .updateTable("job_leases")
      .set({
        lease_owner: null,
        leased_until: null,
        last_finished_at: iso(this.options.now()),
        last_error: error ?? (interrupted ? "interrupted by shutdown" : null),
        // An interrupted run is due again at once, for whichever process is still running.
        ...(interrupted ? { next_run_at: iso(this.options.now()) } : {}),
      })
      .where("name", "=", job.name)
      .where("lease_owner", "=", this.owner)
      .execute();
  }
}
