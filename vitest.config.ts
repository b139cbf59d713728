import { defineConfig } from "vitest/config";

/**
 * The tiers (README "Tests"), one vitest project each; `vitest run` runs them all, `--project <name>` one of them.
 *
 * - fast: pure logic: no database, no app build, no browser, no other process. A test joins it by being listed here
 *   (src/ files by name, wherever their folder moves); a test not listed in fast or slow runs in db.
 * - db: everything else: tests on a database (SQLite and PostgreSQL, TEST_DB) and on the whole app through inject();
 *   files share their worker process. db-isolated: the db tests that change what a process keeps for good, each in a
 *   process of its own.
 * - slow: Chromium, the built server process (dist/, after `npm run build`), crashes, two instances, child processes.
 */
const FAST = [
  "src/**/session-csrf.test.ts",
  "src/**/referrer.test.ts",
  "src/**/representation.test.ts",
  "src/**/search.test.ts",
  "src/**/conditional.test.ts",
  "src/**/methods.test.ts",
  "src/**/compression.test.ts",
  "src/**/query.test.ts",
  "src/**/xml.test.ts",
  "src/**/attributes.test.ts",
  "src/core/mail/layout.test.ts",
  "test/businesses/schema-org.test.ts",
  "src/core/media/multipart.test.ts",
  "test/community/markdown.test.ts",
  "test/foundation/config.test.ts",
  "test/foundation/docs.test.ts",
  "test/foundation/status-labels.test.ts",
  "test/scale/config.test.ts",
  "test/scale/pg-timestamps.test.ts",
  "src/maps/area.test.ts",
];

const SLOW = [
  "test/browser/**/*.test.{ts,tsx}",
  "test/hardening/crash.test.ts",
  "test/forwarding/kill-mid-send.test.ts",
  "test/scale/two-instances.test.ts",
  "test/foundation/server.test.ts",
  "test/scale/checkpointer.test.ts",
  "test/scale/sync-thread.test.ts",
  "test/foundation/html-valid.test.ts",
  "test/foundation/mail-layout.test.ts",
];

/**
 * Timing measured in the page (long tasks on a CPU slowed 4 times): alone, after every other tier, so no other test
 * file's Chromium competes with the page it measures.
 */
const SLOW_ALONE = ["test/browser/map-long-tasks.test.ts"];

/** db tests that change state kept per process (prepared.test.ts fills the set of named prepared statements). */
const DB_ISOLATED = ["test/scale/prepared.test.ts"];

const ALL = ["src/**/*.test.{ts,tsx}", "test/**/*.test.{ts,tsx}"];

/** How TSX is compiled, for the root and every project (a project has its own Vite config). */
const oxc = { jsx: { runtime: "automatic", importSource: "preact" } } as const;

/**
 * What every tier shares. Three workers on the test machines' two cores: the tiers run side by side (the same
 * `groupOrder`, which vitest requires to share one `maxWorkers`), and the browser and child-process tests wait much of
 * their time, so a third worker fills the cores (the whole run: 431 s with two workers and the slow tier after the
 * others, 374 s so).
 */
const common = {
  pool: "forks",
  maxWorkers: 3,
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  oxc,
  test: {
    ...common,
    // Once per run, for every tier (a project's own globalSetup would start a cluster per project); a run of the
    // fast tier alone starts no cluster (see the setup).
    globalSetup: ["test/setup/postgres.ts", "test/setup/run-dir.ts"],
    reporters: ["default", "./test/setup/summary-reporter.ts"],
    projects: [
      { oxc, test: { ...common, name: "fast", include: FAST } },
      {
        oxc,
        test: {
          ...common,
          name: "db",
          include: ALL,
          exclude: [...FAST, ...SLOW, ...DB_ISOLATED],
          // Files share their worker's modules (the app is imported once per worker, not once per file) and its
          // template databases (test/helpers/app.ts). Each file still builds its own apps and databases.
          isolate: false,
        },
      },
      { oxc, test: { ...common, name: "db-isolated", include: DB_ISOLATED } },
      {
        oxc,
        test: {
          ...common,
          name: "slow",
          include: SLOW,
          exclude: SLOW_ALONE,
          isolate: false,
          // Beside fast and db (see `common`); only the map's long-task timing waits for all of them (slow-alone).
          sequence: { groupOrder: 0 },
        },
      },
      { oxc, test: { ...common, name: "slow-alone", include: SLOW_ALONE, sequence: { groupOrder: 2 }, maxWorkers: 1 } },
    ],
  },
});
