import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * The Nu HTML Checker (vnu.jar, the W3C validator, from the vnu-jar package), run with the machine's Java, never
 * one its install script would download. Without Java, tests using it are skipped with a message, except in CI
 * (CI=true), where they fail.
 */
const exec = promisify(execFile);
const vnuJar: string = createRequire(import.meta.url)("vnu-jar");

async function javaAvailable(): Promise<boolean> {
  try {
    await exec("java", ["-version"]);
    return true;
  } catch {
    return false;
  }
}

export const hasJava = await javaAvailable();
if (!hasJava && process.env.CI === "true") throw new Error("Java is needed for the Nu HTML Checker tests");

/** Warns once per test file that the Nu checks are skipped on this machine. */
export function warnNoJava(file: string): void {
  if (!hasJava) console.warn(`${file} skipped: no java on this machine (apt-get install default-jre-headless)`);
}

interface NuMessage {
  type: string;
  url: string;
  message: string;
  extract?: string;
}

/**
 * Checks HTML documents, given as label → HTML text, with one Java process; returns every error as
 * "label: message extract" (warnings are not counted). An empty list means every document is valid.
 */
export async function nuErrors(documents: Map<string, string>): Promise<string[]> {
  if (documents.size === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), "civic-nu-"));
  try {
    const files = new Map<string, string>();
    for (const [i, [label, html]] of [...documents.entries()].entries()) {
      const file = join(dir, `doc-${i}.html`);
      writeFileSync(file, html);
      files.set(file, label);
    }
    // --exit-zero-always: the messages are read from its JSON, not its status. The JVM compiles with its quick
    // compiler only (TieredStopAtLevel=1): for a run of a few seconds that halves the CPU time (about 6 s → 3 s on
    // 26 mails) with the same messages; its deeper stack frames need a bigger thread stack than the default 1 MB.
    const { stderr } = await exec(
      "java",
      [
        "-Xss4m",
        "-XX:TieredStopAtLevel=1",
        "-jar",
        vnuJar,
        "--format",
        "json",
        "--errors-only",
        "--exit-zero-always",
        ...files.keys(),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const messages = (JSON.parse(stderr) as { messages: NuMessage[] }).messages;
    return messages
      .filter((m) => m.type === "error")
      .map((m) => `${files.get(m.url.replace(/^file:/, "")) ?? m.url}: ${m.message} ${m.extract ?? ""}`.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
