import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../../../test/helpers/app.js";
import type { Database } from "../db/database.js";
import { until } from "../../../test/helpers/wait.js";
import { type Job, JobRunner } from "./runner.js";

/** A clock the test moves by hand. */
function clock(start = "2026-11-22T12:00:00.000Z") {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

const HOUR = 60 * 60_000;

describeEachDb("periodic jobs with database leases", (dialect) => {
  let t: TestDatabase;
  let other: Database;
  beforeEach(async () => {
    t = await createTestDatabase(dialect);
    other = t.reopen();
  });
  afterEach(async () => {
    await other.close();
    await t.cleanup();
  });

  /** What a started counting job waits for before it ends (see `together`). */
  let held: Promise<unknown> = Promise.resolve();

  function countingJob(runs: string[], options: Partial<Job> = {}): (who: string) => Job {
    return (who) => ({
      name: "count",
      intervalMs: HOUR,
      async run() {
        runs.push(who);
        await held;
        return { done: 1 };
      },
      ...options,
    });
  }

  /**
   * Every runner's runDue at once; a counting job that starts is held until every runner has either started it too
   * or returned, so each runner tries while the job runs (not only after a while).
   */
  async function together(runners: JobRunner[], runs: string[]): Promise<void> {
    let open = (): void => {};
    held = new Promise<void>((resolve) => (open = resolve));
    const before = runs.length;
    let returned = 0;
    const all = runners.map((r) => r.runDue().finally(() => returned++));
    await until(() => returned + runs.length - before >= runners.length);
    open();
    await Promise.all(all);
    held = Promise.resolve();
  }

  it("runs a job once per interval across several processes sharing the database", async () => {
    const c = clock();
    const runs: string[] = [];
    const job = countingJob(runs);
    const runners = [t.database, other, t.database, other].map(
      (d, i) => new JobRunner({ db: d.db, jobs: [job(`p${i}`)], now: c.now, owner: `p${i}` }),
    );
    await together(runners, runs);
    expect(runs).toHaveLength(1);

    c.advance(HOUR - 1);
    await together(runners, runs);
    expect(runs).toHaveLength(1);

    c.advance(1);
    await together(runners, runs);
    expect(runs).toHaveLength(2);
    const row = await t.database.db.selectFrom("job_leases").selectAll().executeTakeFirstOrThrow();
    expect(row.lease_owner).toBeNull();
    expect(row.next_run_at).toBe(new Date(c.now().getTime() + HOUR).toISOString());
    expect(row.last_error).toBeNull();
  });

  it("a process that died mid-run holds the job only until its lease ends", async () => {
    const c = clock();
    const runs: string[] = [];
    const crashed = new JobRunner({
      db: t.database.db,
      now: c.now,
      owner: "crashed",
      jobs: [{ name: "count", intervalMs: HOUR, leaseMs: 2 * HOUR, run: () => new Promise(() => {}) }],
    });
    void crashed.runDue();
    // Until the crashed process holds the lease (a fixed pause was too short on a loaded machine).
    await vi.waitFor(
      async () => {
        const row = await t.database.db.selectFrom("job_leases").select("lease_owner").executeTakeFirst();
        expect(row?.lease_owner).toBe("crashed");
      },
      { timeout: 10_000, interval: 20 },
    );
    const survivor = new JobRunner({
      db: other.db,
      now: c.now,
      owner: "survivor",
      jobs: [countingJob(runs)("survivor")],
    });
    c.advance(HOUR);
    expect(await survivor.runDue()).toEqual([]);
    c.advance(HOUR + 1);
    expect(await survivor.runDue()).toEqual(["count"]);
    expect(runs).toEqual(["survivor"]);
  });

  it("stopping aborts the run, releases the lease and leaves the job due for another process", async () => {
    const c = clock();
    let sawAbort = false;
    let started = false;
    const stopping = new JobRunner({
      db: t.database.db,
      now: c.now,
      owner: "stopping",
      pollMs: 10,
      jobs: [
        {
          name: "count",
          intervalMs: HOUR,
          run: ({ signal }) =>
            new Promise((resolve) => {
              started = true;
              signal.addEventListener("abort", () => {
                sawAbort = true;
                resolve(undefined);
              });
            }),
        },
      ],
    });
    stopping.start();
    // Until the job runs (it holds the lease by then), for as long as the test's timeout allows.
    await until(() => started);
    const lease = await t.database.db.selectFrom("job_leases").select("lease_owner").executeTakeFirstOrThrow();
    expect(lease.lease_owner).toBe("stopping");
    await stopping.stop();
    expect(sawAbort).toBe(true);
    const row = await t.database.db.selectFrom("job_leases").selectAll().executeTakeFirstOrThrow();
    expect(row.lease_owner).toBeNull();
    expect(row.leased_until).toBeNull();
    expect(row.last_error).toBe("interrupted by shutdown");

    const runs: string[] = [];
    const next = new JobRunner({ db: other.db, now: c.now, owner: "next", jobs: [countingJob(runs)("next")] });
    expect(await next.runDue()).toEqual(["count"]);
  });

  it("records a failure and keeps the schedule", async () => {
    const c = clock();
    const runner = new JobRunner({
      db: t.database.db,
      now: c.now,
      jobs: [
        {
          name: "broken",
          intervalMs: HOUR,
          run: async () => {
            throw new Error("disk full");
          },
        },
      ],
    });
    expect(await runner.runDue()).toEqual(["broken"]);
    const row = await t.database.db.selectFrom("job_leases").selectAll().executeTakeFirstOrThrow();
    expect(row.last_error).toBe("disk full");
    expect(row.lease_owner).toBeNull();
    expect(await runner.runDue()).toEqual([]);
    c.advance(HOUR);
    expect(await runner.runDue()).toEqual(["broken"]);
  });
});
