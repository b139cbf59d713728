/**
 * The analytics feature's public entry: what other features may use of it (the dependency rules in
 * .dependency-cruiser.cjs let them import this file and no other of the folder).
 */
export { dailyTraffic, topCounts } from "./repository.js";
export type { DailyTraffic, KeyCount } from "./repository.js";
export { addDays, statsDay } from "./visitors.js";
