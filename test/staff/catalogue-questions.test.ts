import { expect, it } from "vitest";
import { labelledAnswers } from "../../src/catalogue/questions.js";
import { submitReport } from "../../src/reports/submit.js";
import { describeEachDb } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { signInAs } from "../helpers/staff.js";
import { expectValid } from "../open311/support.js";
import { catalogueSuite, definition, services } from "./catalogue-support.js";

/** A category's extra questions: add, edit, reorder, remove; Open311 definitions follow at once on two instances. */
describeEachDb("category questions", (dialect) => {
  const s = catalogueSuite(dialect);
  const db = () => s.t.app.civic.database.db;
  const category = (code: string) =>
    db().selectFrom("categories").selectAll().where("code", "=", code).executeTakeFirst();

  it("starts from a new category", async () => {
    const made = await s.admin.post(
      "/admin/categories/new",
      { code: "hedges", name: "Overgrown hedge", description: "Hedges over the pavement." },
      "/admin/categories/new",
    );
    expect(made.statusCode).toBe(303);
  });

  it("adds, edits, reorders and removes questions; the form and definitions follow at once on both instances", async () => {
    const page = "/admin/categories/hedges/questions";
    // Warm both instances' prepared definitions.
    for (const app of [s.t.app, s.second])
      expect((await definition(app, "hedges")).json()).toEqual({ service_code: "hedges", attributes: [] });

    const noValues = await s.admin.post(
      page,
      { code: "side", description: "Which side?", datatype: "singlevaluelist", values: "" },
      page,
    );
    expect(noValues.statusCode).toBe(400);
    expect(noValues.body).toContain("A list question needs its answers");
    expect(noValues.body).toContain('value="Which side?"');
    const badKey = await s.admin.post(
      page,
      { code: "side", description: "Which side?", datatype: "singlevaluelist", values: "left | Left\nleft | Again" },
      page,
    );
    expect(badKey.body).toContain("is used twice");
    const badCode = await s.admin.post(page, { code: "../x", description: "Q", datatype: "string" }, page);
    expect(badCode.body).toContain("The code is not valid");

    const addList = await s.admin.post(
      page,
      {
        code: "side",
        description: "Which side of the road?",
        datatype: "singlevaluelist",
        values: "left | Left side\r\nright | Right side",
        required: "yes",
        reason: "Helps the crew",
      },
      page,
    );
    expect(addList.statusCode).toBe(303);
    const addText = await s.admin.post(
      page,
      { code: "height", description: "How high is it?", datatype: "number", help: "In metres" },
      page,
    );
    expect(addText.statusCode).toBe(303);
    const dup = await s.admin.post(page, { code: "side", description: "Again", datatype: "string" }, page);
    expect(dup.body).toContain("already has a question with this code");

    for (const app of [s.t.app, s.second]) {
      const def = (await definition(app, "hedges")).json() as {
        attributes: { code: string; order: number; required: boolean; values?: unknown }[];
      };
      expectValid("service-definition", def);
      expect(def.attributes.map((a) => [a.code, a.order])).toEqual([
        ["side", 1],
        ["height", 2],
      ]);
      expect(def.attributes[0]).toMatchObject({
        required: true,
        values: [
          { key: "left", name: "Left side" },
          { key: "right", name: "Right side" },
        ],
      });
    }
    expect((await services(s.second)).json()).toContainEqual(
      expect.objectContaining({ service_code: "hedges", metadata: true }),
    );
    const form = await s.t.app.inject({ url: "/report?category=hedges" });
    expect(form.body).toContain('name="attribute[side]"');
    expect(form.body).toContain("Right side");

    // A report answers both questions before they change.
    const report = await submitReport(
      s.t.app.civic,
      reportSubmission({ categoryCode: "hedges", attributes: { side: "left", height: "2.5" } }),
    );

    const moved = await s.admin.post(`${page}/height/move`, { direction: "up" }, page);
    expect(moved.statusCode).toBe(303);
    const edited = await s.admin.post(
      `${page}/side`,
      {
        description: "Which side is it on?",
        datatype: "singlevaluelist",
        values: "left | Left\nright | Right\nboth | Both sides",
      },
      `${page}/side`,
    );
    expect(edited.statusCode).toBe(303);
    const badEdit = await s.admin.post(
      `${page}/side`,
      { description: "", datatype: "number", values: "x | y" },
      `${page}/side`,
    );
    expect(badEdit.statusCode).toBe(400);
    expect(badEdit.body).toContain("Only list questions have answers to choose from");
    expect(badEdit.body).toContain("x | y");

    const noReason = await s.admin.post(`${page}/height/remove`, {}, page);
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain("Give a reason");
    const removed = await s.admin.post(`${page}/height/remove`, { reason_height: "Not needed" }, page);
    expect(removed.statusCode).toBe(303);
    for (const app of [s.t.app, s.second]) {
      const def = (await definition(app, "hedges", "xml")).body;
      expect(def).toContain("<code>side</code>");
      expect(def).toContain("<key>both</key>");
      expect(def).not.toContain("<code>height</code>");
    }
    expect((await s.t.app.inject({ url: "/report?category=hedges" })).body).not.toContain('name="attribute[height]"');
    const reuse = await s.admin.post(page, { code: "height", description: "Height again", datatype: "string" }, page);
    expect(reuse.body).toContain("A removed question used this code");
    expect((await s.admin.get(page)).body).toContain("Removed questions");

    // The report keeps its answers; the removed question keeps its label.
    const stored = await db()
      .selectFrom("reports")
      .select("attributes")
      .where("reference", "=", report.reference)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.attributes)).toEqual({ side: "left", height: "2.5" });
    expect(labelledAnswers((await category("hedges"))!, JSON.parse(stored.attributes))).toEqual([
      { code: "side", label: "Which side is it on?", answer: "Left", removed: false },
      { code: "height", label: "How high is it?", answer: "2.5", removed: true },
    ]);
    // Staff see the answers on the report, the removed question under its old label.
    const staffView = (await s.admin.get(`/admin/reports/${report.reference}`)).body;
    expect(staffView).toContain("Which side is it on?");
    expect(staffView).toMatch(/How high is it\?\s*\(a question since removed\)/);
    expect(staffView).toContain("<dd>2.5</dd>");
    const actions = (await db().selectFrom("audit_log").select("action").where("item_id", "=", "hedges").execute()).map(
      (a) => a.action,
    );
    for (const a of [
      "category.question.add",
      "category.question.edit",
      "category.question.move",
      "category.question.remove",
    ])
      expect(actions).toContain(a);
    expect((await s.admin.get(`${page}/nope`)).statusCode).toBe(404);
  });

  it("keeps both questions when two admins add one at the same time", async () => {
    const page = "/admin/categories/bus_shelter/questions";
    const other = await signInAs(s.t.app, "admin2@example.org", "admin");
    const results = await Promise.all([
      s.admin.post(page, { code: "glass", description: "Is there broken glass?", datatype: "string" }, page),
      other.post(page, { code: "stop_name", description: "Which stop?", datatype: "string" }, page),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual([303, 303]);
    const def = (await definition(s.second, "bus_shelter")).json() as { attributes: { code: string; order: number }[] };
    expect(def.attributes.map((a) => a.code).sort()).toEqual(["glass", "stop_name"]);
    expect(def.attributes.map((a) => a.order).sort()).toEqual([1, 2]);
  });
});
