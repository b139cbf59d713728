import type { Feature } from "../core/context.js";
import { analyticsPlugin } from "./plugin.js";
import { analyticsRollupJob } from "./rollup.js";

/** Cookie-free visitor statistics: counted in an onResponse hook, rolled up by a job. */
export const analytics: Feature = {
  name: "analytics",
  plugins: [analyticsPlugin],
  jobs: (civic) => [analyticsRollupJob(civic.database.db)],
};
