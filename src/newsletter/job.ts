import type { Civic } from "../core/context.js";
import type { Job } from "../core/jobs/runner.js";
import { sendPendingIssues } from "./service.js";

/**
 * Queues newsletter issues that staff started sending, in batches. It runs under a database lease (one process at a
 * time) and resumes where the last run stopped, crashed or was killed: the per-recipient rows in
 * `newsletter_sends` say who has been queued already.
 */
export function newsletterSendJob(civic: Civic): Job {
  return {
    name: "newsletter-send",
    intervalMs: 30_000,
    leaseMs: 5 * 60_000,
    async run({ signal }) {
      const queued = await sendPendingIssues(civic, signal);
      return queued > 0 ? { queued } : undefined;
    },
  };
}
