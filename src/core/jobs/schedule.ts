import type { FastifyBaseLogger } from "fastify";
import type { Civic } from "../context.js";
import { retentionJob } from "./retention.js";
import { JobRunner } from "./runner.js";

/**
 * The platform's periodic jobs in one runner that the server starts and stops with its other workers: the floor's
 * retention job, then every feature's jobs (manifests' `jobs`) in feature-list order.
 */
export function scheduledJobs(civic: Civic, log: FastifyBaseLogger): JobRunner {
  const { db } = civic.database;
  return new JobRunner({
    db,
    now: () => civic.now(),
    log,
    jobs: [retentionJob(db), ...civic.features.flatMap((f) => f.jobs?.(civic) ?? [])],
  });
}
