import type { FastifyBaseLogger } from "fastify";
import { analyticsRollupJob } from "../../analytics/rollup.js";
import { newsletterSendJob } from "../../newsletter/job.js";
import { keptPhotoCleanupJob } from "../../reports/kept-photos.js";
import type { Civic } from "../context.js";
import { mediaStorage } from "../media/storage.js";
import { retentionJob } from "./retention.js";
import { JobRunner } from "./runner.js";

/** The platform's periodic jobs, in one runner that the server starts and stops with its other workers. */
export function scheduledJobs(civic: Civic, log: FastifyBaseLogger): JobRunner {
  const { db } = civic.database;
  return new JobRunner({
    db,
    now: () => civic.now(),
    log,
    jobs: [
      retentionJob(db),
      keptPhotoCleanupJob(db, mediaStorage(civic.config)),
      analyticsRollupJob(db),
      newsletterSendJob(civic),
    ],
  });
}
