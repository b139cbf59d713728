import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";

/**
 * Issue 34: notices are styled by what they mean. A message that something worked is a success notice announced as
 * a status, never the amber warning box; the warning about emergencies stays a warning; information is neither.
 */
describeEachDb("notices by meaning", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  /** The class list of the notice (an element with class "notice …") that holds `text`, or null. */
  function noticeAround(html: string, text: string): { classes: string[]; role: string | null } | null {
    for (const m of html.matchAll(/<(p|div|aside|section)([^>]*class="(notice[^"]*)"[^>]*)>([\s\S]*?)<\/\1>/g)) {
      if (m[4]!.includes(text)) {
        return { classes: m[3]!.split(/\s+/), role: /role="([^"]+)"/.exec(m[2]!)?.[1] ?? null };
      }
    }
    return null;
  }

  it("a saved change says so in a success notice, announced as a status", async () => {
    const resident = await signInAs(t.app, "notices.resident@example.org", "resident");
    const saved = await resident.post("/account/name", { name: "Notice Tester" }, "/account");
    const page = saved.statusCode === 303 ? await resident.get(String(saved.headers.location)) : saved;
    const notice = noticeAround(page.body, "Your name is saved.");
    expect(notice).not.toBeNull();
    expect(notice!.classes).toContain("notice-success");
    expect(notice!.classes).not.toContain("notice-warning");
    expect(notice!.role).toBe("status");
  });

  it("the emergencies warning is a warning; the report form's privacy note is information", async () => {
    const home = (await t.app.inject("/")).body;
    expect(noticeAround(home, "Not for emergencies")?.classes).toContain("notice-warning");
    const form = (await t.app.inject("/report?category=pothole")).body;
    const info = noticeAround(form, "What is never public");
    expect(info?.classes).toEqual(["notice"]);
  });
});
