import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory of this test run, removed at its end: the workers' template databases go there. */
    testRunDir: string;
  }
}

/**
 * Makes the run's directory. What a worker leaves in it is removed with it at the end: workers are stopped with a
 * signal, so their own exit handlers do not run.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "civic-run-"));
  project.provide("testRunDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
