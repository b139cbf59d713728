import { describe, expect, it } from "vitest";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { submitReport } from "../../src/reports/submit.js";
import { describeEachDb } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { expectValid, form, multipart } from "../open311/support.js";
import { catalogueSuite, definition, serviceCodes, services } from "./catalogue-support.js";

/** Category and department administration: round trips, Open311 at once (two instances), retiring, audit. */
describeEachDb("category administration", (dialect) => {
  const s = catalogueSuite(dialect);
  const db = () => s.t.app.civic.database.db;
  const audit = (action: string) => db().selectFrom("audit_log").selectAll().where("action", "=", action).execute();
  const category = (code: string) =>
    db().selectFrom("categories").selectAll().where("code", "=", code).executeTakeFirst();

  describe("departments", () => {
    it("creates, edits (its categories follow) and deletes only when unused, each audited", async () => {
      const bad = await s.admin.post(
        "/admin/departments",
        { name: "Hedges team", email: "not an address" },
        "/admin/departments",
      );
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain("<title>Error: ");
      expect(bad.body).toContain("Enter an email address like");
      expect(bad.body).toContain('value="Hedges team"');
      expect(bad.body).toContain('aria-invalid="true"');

      const made = await s.admin.post("/admin/departments", {
        name: "Hedges team",
        email: "Hedges@Council.example.org",
        reason: "New team",
      });
      expect(made.statusCode).toBe(303);
      const dept = await db()
        .selectFrom("departments")
        .selectAll()
        .where("name", "=", "Hedges team")
        .executeTakeFirstOrThrow();
      expect(dept.email).toBe("hedges@council.example.org");
      const [created] = await audit("department.create");
      expect(created).toMatchObject({
        actor_id: s.admin.accountId,
        item_type: "department",
        item_id: String(dept.id),
        reason: "New team",
      });

      const dup = await s.admin.post("/admin/departments", { name: "Hedges team", email: "x@example.org" });
      expect(dup.statusCode).toBe(400);
      expect(dup.body).toContain("already a department with this name");

      // The demo's forwarding addresses became departments; renaming one renames the copy its categories keep.
      const roads = await db()
        .selectFrom("categories")
        .select(["department_id", "department_name"])
        .where("code", "=", "pothole")
        .executeTakeFirstOrThrow();
      expect(roads.department_id).not.toBeNull();
      const renamed = await s.admin.post(`/admin/departments/${roads.department_id}`, {
        name: "Highways and roads",
        email: "roads@council.example.org",
        reason: "Reorganised",
      });
      expect(renamed.statusCode).toBe(303);
      expect((await category("pothole"))!.department_name).toBe("Highways and roads");
      expect((await category("pothole"))!.department_email).toBe("roads@council.example.org");
      expect(JSON.parse((await audit("department.update"))[0]!.details)).toMatchObject({
        to: { name: "Highways and roads" },
      });

      const used = await s.admin.post(
        `/admin/departments/${roads.department_id}/delete`,
        { delete_reason: "Gone" },
        `/admin/departments/${roads.department_id}`,
      );
      expect(used.statusCode).toBe(400);
      expect(used.body).toContain("cannot be deleted while categories use it");
      const noReason = await s.admin.post(`/admin/departments/${dept.id}/delete`, {}, `/admin/departments/${dept.id}`);
      expect(noReason.statusCode).toBe(400);
      expect(noReason.body).toContain("Give a reason");
      const deleted = await s.admin.post(
        `/admin/departments/${dept.id}/delete`,
        { delete_reason: "Merged" },
        `/admin/departments/${dept.id}`,
      );
      expect(deleted.statusCode).toBe(303);
      expect(
        await db().selectFrom("departments").select("id").where("id", "=", dept.id).executeTakeFirst(),
      ).toBeUndefined();
      expect((await audit("department.delete"))[0]!.reason).toBe("Merged");
      expect((await s.admin.get("/admin/departments/999999")).statusCode).toBe(404);
    });
  });

  describe("categories", () => {
    it("refuses bad input with messages and keeps what was typed; codes are never reused", async () => {
      const bad = await s.admin.post(
        "/admin/categories/new",
        { code: "Bad Code!", name: "", keywords: "a, b", order: "x" },
        "/admin/categories/new",
      );
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain("The service code is not valid");
      expect(bad.body).toContain("Enter the category’s name");
      expect(bad.body).toContain("The position must be a whole number");
      expect(bad.body).toContain('value="Bad Code!"');
      expect(bad.body).toContain('value="a, b"');
      const taken = await s.admin.post(
        "/admin/categories/new",
        { code: "pothole", name: "Another" },
        "/admin/categories/new",
      );
      expect(taken.statusCode).toBe(400);
      expect(taken.body).toContain("This service code is taken");
      const nul = await s.admin.post(
        "/admin/categories/new",
        { code: "ok_code", name: "A\nB" },
        "/admin/categories/new",
      );
      expect(nul.statusCode).toBe(400);
      expect(nul.body).toContain("must be one line of plain text");
    });

    it("creates and edits a category; services change at once on this and another instance (ETag moves)", async () => {
      // Both instances have served (and prepared) the list before the change.
      const before = await services(s.t.app);
      expect(await serviceCodes(s.second)).not.toContain("hedges");
      const etag = String(before.headers.etag);
      expect(before.headers["cache-control"]).toBe("public, no-cache");
      const notModified = await s.t.app.inject({ url: "/api/v2/services.json", headers: { "if-none-match": etag } });
      expect(notModified.statusCode).toBe(304);

      const dept = await db().selectFrom("departments").select("id").orderBy("id").executeTakeFirstOrThrow();
      const made = await s.admin.post(
        "/admin/categories/new",
        {
          code: "hedges",
          name: "Overgrown hedge",
          description: "Hedges over the pavement.",
          group: "Roads and paths",
          keywords: "hedge, bush, hedge",
          department: String(dept.id),
          order: "3",
          reason: "Asked by the parish",
        },
        "/admin/categories/new",
      );
      expect(made.statusCode).toBe(303);
      expect(made.headers.location).toBe("/admin/categories/hedges?done=created");
      const row = await category("hedges");
      expect(row).toMatchObject({
        name: "Overgrown hedge",
        group_name: "Roads and paths",
        keywords: '["hedge","bush"]',
        department_id: dept.id,
        retired_at: null,
      });

      for (const app of [s.t.app, s.second]) expect(await serviceCodes(app)).toContain("hedges");
      const after = await s.t.app.inject({ url: "/api/v2/services.json", headers: { "if-none-match": etag } });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(etag);
      expectValid("services", after.json());
      expect((await services(s.second, "xml")).body).toContain("<service_code>hedges</service_code>");

      const edit = await s.admin.post(
        "/admin/categories/hedges",
        {
          name: "Overgrown hedge or tree",
          description: "Hedges or trees over the pavement.",
          group: "Roads and paths",
          keywords: "hedge",
          department: "",
          order: "3",
          reason: "Trees too",
        },
        "/admin/categories/hedges",
      );
      expect(edit.statusCode).toBe(303);
      for (const app of [s.t.app, s.second]) {
        const list = (await services(app)).json() as { service_code: string; service_name: string }[];
        expect(list.find((s) => s.service_code === "hedges")?.service_name).toBe("Overgrown hedge or tree");
      }
      expect((await category("hedges"))!.department_email).toBeNull();
      const [update] = await audit("category.update");
      expect(update).toMatchObject({
        item_type: "category",
        item_id: "hedges",
        reason: "Trees too",
        actor_id: s.admin.accountId,
      });
      expect(JSON.parse(update!.details)).toMatchObject({
        name: { from: "Overgrown hedge", to: "Overgrown hedge or tree" },
      });
      expect((await s.admin.get("/admin/categories")).body).toContain("Overgrown hedge or tree");
      expect((await s.admin.get("/admin/categories/nope")).statusCode).toBe(404);
    });
  });

  it("sees a change made outside the admin pages (plain SQL) at once: the triggers bump the version", async () => {
    expect(await serviceCodes(s.second)).toContain("graffiti");
    await db()
      .updateTable("categories")
      .set({ name: "Graffiti and fly-posting" })
      .where("code", "=", "graffiti")
      .execute();
    const list = (await services(s.second)).json() as { service_code: string; service_name: string }[];
    expect(list.find((c) => c.service_code === "graffiti")?.service_name).toBe("Graffiti and fly-posting");
  });

  describe("retiring", () => {
    it("takes a category out of the form, drafts and Open311, refuses new reports, keeps existing ones", async () => {
      const existing = await submitReport(s.t.app.civic, reportSubmission({ categoryCode: "hedges", attributes: {} }));
      const noReason = await s.admin.post("/admin/categories/hedges/retire", {}, "/admin/categories/hedges");
      expect(noReason.statusCode).toBe(400);
      expect(noReason.body).toContain("Give a reason");
      // A form opened before the category is retired.
      const token = await s.t.app.inject({ url: "/report?category=hedges" });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(token.body)![1]!;
      s.advance(MIN_FILL_MS + 1000);

      const retired = await s.admin.post(
        "/admin/categories/hedges/retire",
        { retire_reason: "Merged into pavement" },
        "/admin/categories/hedges",
      );
      expect(retired.statusCode).toBe(303);
      expect((await category("hedges"))!.retired_at).not.toBeNull();
      expect((await audit("category.retire"))[0]).toMatchObject({ item_id: "hedges", reason: "Merged into pavement" });

      for (const app of [s.t.app, s.second]) {
        expect(await serviceCodes(app)).not.toContain("hedges");
        expect((await services(app, "xml")).body).not.toContain("<service_code>hedges</service_code>");
        expect((await definition(app, "hedges")).statusCode).toBe(404);
      }
      const step = await s.t.app.inject({ url: "/report" });
      expect(step.body).not.toContain('value="hedges"');
      const direct = await s.t.app.inject({ url: "/report?category=hedges" });
      expect(direct.body).not.toContain(`id="description"`);
      expect(direct.body).toContain('name="category"');

      // The web form opened earlier is refused with a message and everything typed kept.
      const web = await s.t.app.inject({
        method: "POST",
        url: "/report",
        ...multipart([
          ["_csrf", csrf],
          ["category", "hedges"],
          ["title", "Hedge by the school"],
          ["description", "Hanging over the path."],
          ["place", "church-lane"],
          ["website", ""],
          ["action", "send"],
        ]),
      });
      expect(web.statusCode).toBe(400);
      expect(web.body).toContain("is no longer in use: choose another category");
      expect(web.body).toContain("Hanging over the path.");

      // A draft saved offline before the category was retired is refused when the app sends it.
      const draftBody = multipart([
        ["category", "hedges"],
        ["title", "Hedge by the school"],
        ["description", "Hanging over the path."],
        ["place", "church-lane"],
        ["website", ""],
      ]);
      const draft = await s.t.app.inject({
        method: "POST",
        url: "/api/app/reports",
        headers: { ...draftBody.headers, "idempotency-key": '"retired-draft-1"', origin: "http://civic.test" },
        payload: draftBody.payload,
      });
      expect(draft.statusCode).toBe(400);
      expect(JSON.stringify(draft.json())).toContain("is no longer in use");

      // Open311: a 400 in its error list format (JSON and XML).
      const fields: [string, string][] = [
        ["api_key", s.apiKey],
        ["service_code", "hedges"],
        ["lat", "50.9862"],
        ["long", "-2.0437"],
        ["description", "Hedge over the path"],
      ];
      const json = await s.t.app.inject({ method: "POST", url: "/api/v2/requests.json", ...form(fields) });
      expect(json.statusCode).toBe(400);
      expectValid("errors", json.json());
      expect(JSON.stringify(json.json())).toContain("is retired and takes no new requests");
      const xml = await s.second.inject({ method: "POST", url: "/api/v2/requests.xml", ...form(fields) });
      expect(xml.statusCode).toBe(400);
      expect(xml.body).toContain("<errors><error>");
      expect(
        await db().selectFrom("reports").select("id").where("title", "=", "Hedge by the school").execute(),
      ).toHaveLength(0);

      // Existing reports keep the category and still show it.
      const publicPage = await s.t.app.inject({ url: `/reports/${existing.reference}` });
      expect(publicPage.statusCode).toBe(200);
      expect(publicPage.body).toContain("Overgrown hedge or tree");
      const asRequest = (await s.t.app.inject({ url: `/api/v2/requests/${existing.reference}.json` })).json() as {
        service_code: string;
        service_name: string;
      }[];
      expect(asRequest[0]).toMatchObject({ service_code: "hedges", service_name: "Overgrown hedge or tree" });
      expect((await s.t.app.inject({ url: "/api/v2/requests.json?service_code=hedges" })).json()).toContainEqual(
        expect.objectContaining({ service_request_id: existing.reference }),
      );
      expect((await s.admin.get("/admin/categories")).body).toMatch(/Retired \d{4}-\d{2}-\d{2}/);

      const back = await s.admin.post(
        "/admin/categories/hedges/unretire",
        { retire_reason: "Needed after all" },
        "/admin/categories/hedges",
      );
      expect(back.statusCode).toBe(303);
      for (const app of [s.t.app, s.second]) expect(await serviceCodes(app)).toContain("hedges");
      expect((await audit("category.unretire"))[0]!.reason).toBe("Needed after all");
    });
  });
});
