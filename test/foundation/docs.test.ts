import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The documentation holds together: the README stays a front door (at most 200 lines, the rest in docs/), every
 * relative link in the Markdown files goes to a file that exists and every `#anchor` to a heading there, and every
 * citation of a section in the code, `README "Tests"` or `docs/api.md "Compression"` (a Markdown file's path, then
 * the heading in double quotes), names a heading that exists, so moving or renaming a section breaks no reference.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(join(ROOT, at))) {
      if (name === "node_modules" || name === "fixtures" || name.startsWith(".")) continue;
      const path = `${at}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (keep(path)) found.push(path);
    }
  };
  if (existsSync(join(ROOT, dir))) walk(dir);
  return found;
}

/** The Markdown files: the README, docs/, deploy/ and the benchmarks' READMEs. */
const markdown = [
  "README.md",
  ...filesUnder("docs", (p) => p.endsWith(".md")),
  ...filesUnder("deploy", (p) => p.endsWith(".md")),
  ...filesUnder("bench", (p) => p.endsWith(".md")),
];

/** A Markdown file without its fenced code blocks (a `# comment` in a shell block is no heading). */
const outsideFences = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading of a Markdown file, as written (without `#`s) and as anchors (repeats get `-1`, `-2`…). */
function headingsOf(path: string): { titles: Set<string>; anchors: Set<string> } {
  const titles = new Set<string>();
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of outsideFences(read(path)).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const title = m[1]!;
    titles.add(title);
    const base = slug(title.replace(/`/g, ""));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return { titles, anchors };
}

describe("the README", () => {
  it("is a front door of at most 200 lines", () => {
    const lines = read("README.md").split("\n").length;
    expect(lines, "README.md lines: move detail to docs/ and link it").toBeLessThanOrEqual(200);
  });

  it("gives the test command that .ci/run runs", () => {
    const tests = /^## Tests\n([\s\S]*?)^## /m.exec(read("README.md"))?.[1] ?? "";
    const command = /```sh\n([^\n]+)\n```/.exec(tests)?.[1];
    expect(command).toBe("npm ci && npm test");
    const ci = read(".ci/run")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"));
    // The last commands of .ci/run, after it installed what was missing, are the README's, one per line.
    expect(ci.slice(-2).join(" && ")).toBe(command);
  });

  it("links every document of docs/", () => {
    const readme = read("README.md");
    const unlinked = filesUnder("docs", (p) => p.endsWith(".md")).filter((p) => !readme.includes(`](${p})`));
    expect(unlinked).toEqual([]);
  });
});

describe("links between the documents", () => {
  it("go to files that exist, and anchors to headings there", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = outsideFences(read(file)).replace(/`[^`\n]*`/g, (code) => (code.includes("](") ? "" : code));
      for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const to = path === "" ? file : relative(ROOT, resolve(dirname(join(ROOT, file)), decodeURI(path)));
        if (!existsSync(join(ROOT, to))) {
          broken.push(`${file}: ${target} (no file ${to})`);
          continue;
        }
        if (anchor !== undefined && to.endsWith(".md") && !headingsOf(to).anchors.has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("citations of a section in the code", () => {
  const sources = [
    ...filesUnder("src", (p) => /\.(ts|tsx|mjs|js)$/.test(p)),
    ...filesUnder("test", (p) => /\.(ts|tsx|mjs|js)$/.test(p)),
    ...filesUnder("bench", (p) => /\.(ts|mjs|js)$/.test(p)),
    ...filesUnder("scripts", (p) => /\.(ts|mjs|js)$/.test(p)),
    ...filesUnder("deploy", (p) => !p.endsWith(".md")),
    ...filesUnder(".ci", () => true),
    "vitest.config.ts",
  ].filter((p) => p !== "test/foundation/docs.test.ts");
  const citation = /\b((?:[\w.-]+\/)*[\w.-]+\.md|README)((?:'s)?) "([^"\n]+)"/g;

  it("name a heading of a Markdown file that exists", () => {
    const wrong: string[] = [];
    for (const file of [...sources, ...markdown]) {
      for (const m of read(file).matchAll(citation)) {
        const doc = m[1] === "README" ? "README.md" : m[1]!;
        const at = `${file}: ${m[0]}`;
        if (m[2]) wrong.push(`${at} (write ${m[1]} "${m[3]}")`);
        else if (!existsSync(join(ROOT, doc))) wrong.push(`${at} (no file ${doc})`);
        else if (!headingsOf(doc).titles.has(m[3]!)) wrong.push(`${at} (no heading "${m[3]}" in ${doc})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("name the document, not 'the README', and only documents that exist", () => {
    const loose: string[] = [];
    for (const file of sources) {
      for (const m of read(file).matchAll(/(?:[\w.-]+\/)*README(?:\.md)?|\bdocs\/[\w.-]+\.md/g)) {
        const name = m[0];
        const path = name.endsWith(".md") ? name : null;
        if (path === null) {
          // A bare README: only as a citation (README "Tests").
          const after = read(file).slice(m.index + name.length, m.index + name.length + 2);
          if (after !== ' "') loose.push(`${file}: "${name}" without a section`);
        } else if (!existsSync(join(ROOT, path))) loose.push(`${file}: ${path} does not exist`);
      }
    }
    expect(loose).toEqual([]);
  });
});
