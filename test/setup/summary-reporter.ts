import type { Reporter, TestModule } from "vitest/node";

interface Tier {
  files: number;
  /** When its first file started and its last file ended (ms since the epoch). */
  start: number;
  end: number;
  /** The slowest file and its time, ms. */
  slowest: { file: string; ms: number } | null;
}

/**
 * Ends the run with one plain line, `vitest: N passed, N failed, N skipped`, that any CI log reader understands,
 * after one line per tier (vitest project): its files, the time from its first file's start to its last file's end,
 * and its slowest file.
 */
export default class SummaryReporter implements Reporter {
  private readonly tiers = new Map<string, Tier>();

  onTestModuleStart(module: TestModule): void {
    const name = module.project.name || "tests";
    const tier = this.tiers.get(name) ?? { files: 0, start: Date.now(), end: Date.now(), slowest: null };
    tier.files++;
    this.tiers.set(name, tier);
  }

  onTestModuleEnd(module: TestModule): void {
    const tier = this.tiers.get(module.project.name || "tests");
    if (!tier) return;
    tier.end = Date.now();
    const ms = module.diagnostic().duration;
    if (!tier.slowest || ms > tier.slowest.ms) tier.slowest = { file: module.relativeModuleId, ms };
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++;
    }
    process.stdout.write("\n");
    for (const [name, tier] of this.tiers) {
      const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      const slowest = tier.slowest ? `, slowest ${tier.slowest.file} ${seconds(tier.slowest.ms)}` : "";
      process.stdout.write(`tier ${name}: ${tier.files} files in ${seconds(tier.end - tier.start)}${slowest}\n`);
    }
    process.stdout.write(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
