import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

const LIST = "/admin/response-templates";

/** Response templates (issue 36): admins keep them, audited; the status form offers the matching ones. */
describeEachDb("response templates", (dialect) => {
  let t: TestApp;
  let admin: SignedIn;
  let moderator: SignedIn;
  const db = () => t.app.civic.database.db;
  const audit = (action: string) =>
    db().selectFrom("audit_log").selectAll().where("action", "=", action).orderBy("id").execute();
  const templateId = async (title: string) =>
    (await db().selectFrom("response_templates").select("id").where("title", "=", title).executeTakeFirstOrThrow()).id;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "1000" } });
    admin = await signInAs(t.app, "admin@example.org", "admin");
    moderator = await signInAs(t.app, "moderator@example.org", "moderator");
  });
  afterAll(async () => t?.close());

  describe("administration", () => {
    it("is for administrators only, and listed in their navigation", async () => {
      expect((await moderator.get(LIST)).statusCode).toBe(403);
      expect((await moderator.get("/admin")).body).not.toContain(`href="${LIST}"`);
      const anonymous = await t.app.inject({ url: LIST });
      expect(anonymous.statusCode).toBe(303);
      const page = await admin.get(LIST);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("There are no templates yet.");
      expect((await admin.get("/admin")).body).toContain(`href="${LIST}"`);
    });

    it("adds, changes and removes a template, each with its audit row", async () => {
      const made = await admin.post(
        LIST,
        {
          title: "Pothole fixed",
          category: "pothole",
          status: "fixed",
          body: "Our team filled the pothole today.\nThank you for reporting it.",
          reason: "Common answer",
        },
        LIST,
      );
      expect(made.statusCode).toBe(303);
      const id = await templateId("Pothole fixed");
      expect(made.headers.location).toBe(`${LIST}/${id}?done=added`);
      const row = await db()
        .selectFrom("response_templates")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ category_code: "pothole", status: "fixed" });
      expect(row.body).toBe("Our team filled the pothole today.\nThank you for reporting it.");
      const [created] = await audit("response_template.create");
      expect(created).toMatchObject({
        actor_id: admin.accountId,
        item_type: "response_template",
        item_id: String(id),
        reason: "Common answer",
      });
      expect(JSON.parse(created!.details)).toEqual({ title: "Pothole fixed", category: "pothole", status: "fixed" });

      // The same post again (a replay, or a second copy): refused with a message, nothing added.
      const again = await admin.post(
        LIST,
        { title: "Pothole fixed", category: "pothole", status: "fixed", body: "Another text.", reason: "" },
        LIST,
      );
      expect(again.statusCode).toBe(400);
      expect(again.body).toContain("There is already a template with this name for this category and status.");
      expect(await db().selectFrom("response_templates").select("id").execute()).toHaveLength(1);

      const list = await admin.get(LIST);
      expect(list.body).toContain(`href="${LIST}/${id}"`);
      expect(list.body).toContain("Our team filled the pothole today.");

      const changed = await admin.post(
        `${LIST}/${id}`,
        { title: "Pothole filled", category: "", status: "fixed", body: "Filled today.", reason: "" },
        `${LIST}/${id}`,
      );
      expect(changed.statusCode).toBe(303);
      const after = await db()
        .selectFrom("response_templates")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(after).toMatchObject({ title: "Pothole filled", category_code: null, body: "Filled today." });
      const [updated] = await audit("response_template.update");
      expect(JSON.parse(updated!.details)).toEqual({
        from: { title: "Pothole fixed", category: "pothole", status: "fixed" },
        to: { title: "Pothole filled", category: "every category", status: "fixed" },
        text_changed: true,
      });

      const noReason = await admin.post(`${LIST}/${id}/delete`, {}, `${LIST}/${id}`);
      expect(noReason.statusCode).toBe(400);
      expect(noReason.body).toContain("Give a reason");
      const removed = await admin.post(`${LIST}/${id}/delete`, { delete_reason: "Not needed" }, `${LIST}/${id}`);
      expect(removed.statusCode).toBe(303);
      expect(removed.headers.location).toBe(`${LIST}?done=removed`);
      expect(await db().selectFrom("response_templates").select("id").where("id", "=", id).executeTakeFirst()).toBe(
        undefined,
      );
      const [deleted] = await audit("response_template.delete");
      expect(deleted).toMatchObject({ item_id: String(id), reason: "Not needed" });
    });

    it("refuses control characters, huge text, unknown categories and statuses, and forged ids, with clear 4xx", async () => {
      const bad = await admin.post(
        LIST,
        {
          title: "Bad name",
          category: "no_such_category",
          status: "vanished",
          body: "x".repeat(2001),
          reason: "",
        },
        LIST,
      );
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain("<title>Error: ");
      expect(bad.body).toContain("Choose one of the listed categories.");
      expect(bad.body).toContain("Choose the status the text is for.");
      expect(bad.body).toContain("The text must be at most 2000 characters.");
      expect(bad.body).toContain('aria-invalid="true"');

      // Control characters are refused before the form is read (the platform's one check), with a clear message.
      for (const [title, body] of [
        ["Bad\u0007name", "Fine"],
        ["Fine", "Null\u0000byte"],
      ]) {
        const control = await admin.post(LIST, { title: title!, category: "", status: "fixed", body: body! }, LIST);
        expect(control.statusCode).toBe(400);
        expect(control.body).toContain("must not contain control characters");
      }

      const huge = await admin.post(
        LIST,
        { title: "t".repeat(100_000), category: "", status: "fixed", body: "b".repeat(100_000), reason: "" },
        LIST,
      );
      expect(huge.statusCode).toBe(400);
      expect(huge.body).toContain("The name must be at most 80 characters.");

      for (const forged of ["999999", "99999999999", "0", "abc", "-1"]) {
        const page = await admin.get(`${LIST}/${forged}`);
        expect(page.statusCode).toBe(404);
        const post = await admin.post(
          `${LIST}/${forged}`,
          { title: "x", category: "", status: "fixed", body: "y" },
          LIST,
        );
        expect(post.statusCode).toBe(404);
        const del = await admin.post(`${LIST}/${forged}/delete`, { delete_reason: "x" }, LIST);
        expect(del.statusCode).toBe(404);
      }
      expect(await db().selectFrom("response_templates").select("id").execute()).toEqual([]);
    });
  });

  describe("the status form", () => {
    let reference: string;
    let page: string;
    const make = (title: string, category: string, status: string, body: string) =>
      admin.post(LIST, { title, category, status, body, reason: "" }, LIST);

    beforeAll(async () => {
      reference = (await submitReport(t.app.civic, reportSubmission())).reference;
      page = `/admin/reports/${reference}`;
      await make("Filled", "pothole", "fixed", "We filled the pothole.");
      await make("Looking", "", "investigating", "We are looking into it.");
      await make("Graffiti gone", "graffiti", "fixed", "The graffiti is cleaned off.");
      await make("Reopened", "pothole", "open", "We have reopened this report.");
    });

    it("lists only the templates of the report's category (or every category) for its next statuses", async () => {
      const view = await moderator.get(page);
      expect(view.statusCode).toBe(200);
      expect(view.body).toContain("Start from a response template (optional)");
      expect(view.body).toContain(`value="${await templateId("Filled")}"`);
      expect(view.body).toContain("Filled (for “Fixed”)");
      expect(view.body).toContain("Looking (for “Investigating”)");
      // Another category's, and one for a status this report cannot move to.
      expect(view.body).not.toContain("Graffiti gone");
      expect(view.body).not.toContain("We have reopened this report.");
      expect(view.body).toMatch(/<script[^>]+src="[^"]*response-templates[^"]*\.js"/);
    });

    it("refuses a template of another category, of another status, or a forged id, clearly", async () => {
      const cases: [string, string, string][] = [
        [String(await templateId("Graffiti gone")), "fixed", "not one of this report's"],
        [String(await templateId("Filled")), "investigating", "is for the status “Fixed”"],
        ["99999999999", "fixed", "Choose one of the listed templates"],
        ["1; drop table", "fixed", "Choose one of the listed templates"],
        ["2147483647", "fixed", "not one of this report's"],
      ];
      for (const [template, status, message] of cases) {
        const res = await moderator.post(`${page}/status`, { status, note: "", template, expected: "open" }, page);
        expect(res.statusCode).toBe(400);
        expect(res.body).toContain(message);
        expect(res.body).toContain('href="#staff-template"');
      }
      const nothing = await moderator.post(
        `${page}/status`,
        { status: "fixed", note: "", template: "", expected: "open" },
        page,
      );
      expect(nothing.statusCode).toBe(400);
      expect(nothing.body).toContain("Enter the public update text.");
      const report = await db()
        .selectFrom("reports")
        .select("status")
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      expect(report.status).toBe("open");
    });

    it("publishes the chosen template's text when none is typed, and typed text when there is some", async () => {
      const filled = String(await templateId("Filled"));
      const looking = String(await templateId("Looking"));
      const typed = await moderator.post(
        `${page}/status`,
        { status: "investigating", note: "Our own words.", template: looking, expected: "open" },
        page,
      );
      expect(typed.statusCode).toBe(303);
      const fromTemplate = await moderator.post(
        `${page}/status`,
        { status: "fixed", note: "  ", template: filled, expected: "investigating" },
        page,
      );
      expect(fromTemplate.statusCode).toBe(303);
      const notes = await db()
        .selectFrom("report_updates")
        .innerJoin("reports", "reports.id", "report_updates.report_id")
        .select(["report_updates.status", "report_updates.note"])
        .where("reports.reference", "=", reference)
        .orderBy("report_updates.id")
        .execute();
      expect(notes.filter((n) => n.status !== "open").map((n) => [n.status, n.note])).toEqual([
        ["investigating", "Our own words."],
        ["fixed", "We filled the pothole."],
      ]);
    });
  });
});
