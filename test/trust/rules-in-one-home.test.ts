import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Cross-cutting rules have one home each: who may do what is asked of the policy (src/core/policy.ts), and what the
 * public may see is the one visibility rule (src/core/visibility.ts). These scans fail when a file elsewhere in src/
 * writes its own role comparison or public-visibility condition; an exception is listed here, with why. (The
 * third such rule, a form accepted once, is kept by the dependency rules: only src/core/http/single-use.tsx reads
 * src/core/http/form-submissions.ts.)
 */

const ROOT = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** `file:line: text` for every line of src/ (outside `allowed`) that matches one of `patterns`. */
function offending(patterns: RegExp[], allowed: Record<string, string>): string[] {
  return sources(join(ROOT, "src")).flatMap((path) => {
    const file = relative(ROOT, path).replaceAll("\\", "/");
    if (file in allowed) return [];
    return readFileSync(path, "utf8")
      .split("\n")
      .flatMap((line, i) => (patterns.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
  });
}

const matches = (patterns: RegExp[], line: string) => patterns.some((p) => p.test(line));

describe("every public read uses the one visibility rule", () => {
  const OP = String.raw`(?:={1,3}|!==?|<>)`;
  const PUBLIC_VALUE = String.raw`(?:["'\`]public["'\`]|(?:\$\{\s*)?(?:sql\.lit\(\s*)?\bPUBLIC\b)`;
  const RAW_PUBLIC = [
    // A comparison with the column in JS or in SQL text: visibility === "public", reports.visibility = 'public'.
    new RegExp(String.raw`visibility\W{0,6}${OP}\s*${PUBLIC_VALUE}`),
    new RegExp(String.raw`${PUBLIC_VALUE}\s*${OP}\s*[\w.?]*visibility`),
    // A query builder condition: .where("ideas.visibility", "=", "public").
    new RegExp(String.raw`visibility["'\`]\s*,\s*["'\`][^"'\`]{1,8}["'\`]\s*,\s*${PUBLIC_VALUE}`),
    // A moderated item's state (the same values): item.state !== "public".
    new RegExp(String.raw`\bstate\W{0,6}${OP}\s*["'\`]public["'\`]`),
  ];
  /** Files that may write the condition themselves, and why. */
  const ALLOWED: Record<string, string> = {
    "src/core/visibility.ts": "the rule itself",
    "src/core/policy.ts":
      "item.support is for public items: the policy decides on the state its caller loaded and imports no query code",
  };

  it("recognises the raw conditions it looks for", () => {
    for (const raw of [
      `.where("visibility", "=", "public")`,
      `.where("ideas.visibility", "=", PUBLIC)`,
      "sql`${sql.ref(\"reports.visibility\")} = 'public'`",
      "sql`select id from reports where visibility = 'public'`",
      "sql`visibility = ${sql.lit(PUBLIC)}`",
      `if (idea.visibility !== "public") throw notFound();`,
      `report?.visibility !== PUBLIC`,
      `"public" === row.visibility`,
      `if (item.state !== "public") return;`,
    ]) {
      expect(matches(RAW_PUBLIC, raw), raw).toBe(true);
    }
    for (const fine of [
      `.where(publicReport)`,
      `.where(publicIn("ideas"))`,
      `isPublic(r.visibility) ? <FollowForm /> : null`,
      `.where("visibility", "!=", "removed")`,
      `visibility: banned ? "hidden" : PUBLIC,`,
      `.set({ visibility: state })`,
    ]) {
      expect(matches(RAW_PUBLIC, fine), fine).toBe(false);
    }
  });

  it("no other file writes a public-visibility condition", () => {
    expect(offending(RAW_PUBLIC, ALLOWED)).toEqual([]);
  });
});

describe("every role check asks the policy", () => {
  const ROLE = String.raw`["'\`](?:resident|moderator|admin)["'\`]`;
  const INLINE_ROLE = [
    // role === "admin", viewer.role !== "resident", account?.role == 'moderator'
    new RegExp(String.raw`\brole\W{0,6}(?:===?|!==?)\s*${ROLE}`),
    new RegExp(String.raw`${ROLE}\s*(?:===?|!==?)\s*[\w.?]*\brole\b`),
    // A query that selects accounts by a role it names: .where("role", "in", ["moderator", "admin"]).
    new RegExp(String.raw`\.where\(\s*["'\`](?:\w+\.)?role["'\`]\s*,\s*["'\`][^"'\`]{1,8}["'\`]\s*,\s*\[?\s*${ROLE}`),
  ];
  /** Files that may compare roles themselves, and why. */
  const ALLOWED: Record<string, string> = {
    "src/core/policy.ts": "the policy itself",
    "src/accounts/cli.ts":
      "the article of a sentence (“an admin”, “a moderator”); the command line acts with the server's authority, not a viewer's",
  };

  it("recognises the inline checks it looks for", () => {
    for (const raw of [
      `if (viewer.role === "admin") {`,
      `viewer.role !== "resident" ? a : b`,
      `"moderator" === request.viewer?.role`,
      `.where("role", "in", ["moderator", "admin"])`,
      `.where("accounts.role", "=", "admin")`,
    ]) {
      expect(matches(INLINE_ROLE, raw), raw).toBe(true);
    }
    for (const fine of [
      `can(viewer, "staff.administer")`,
      `.where("role", "in", rolesWhoMay("staff.enter"))`,
      `selected={values.role === r}`,
      `await guardedScope(app, "admin", routes)`,
    ]) {
      expect(matches(INLINE_ROLE, fine), fine).toBe(false);
    }
  });

  it("no other file compares roles or selects accounts by a role it names", () => {
    expect(offending(INLINE_ROLE, ALLOWED)).toEqual([]);
  });
});
