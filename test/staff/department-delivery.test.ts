import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDb, createTestApp, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";
import { FakeCouncil } from "../forwarding/fake-council.js";

/**
 * The delivery form of /admin/departments/:id (issue 37): email or Open311, the endpoint, a password-type key field
 * that never shows a stored key, the mappings, errors at their fields (400), the audit without the key, and the
 * connection check against a fake council, whose error text is shown escaped.
 */
describeEachDb("a department's delivery method on the admin pages", (dialect) => {
  let t: TestApp;
  let admin: SignedIn;
  let council: FakeCouncil;
  let id: number;
  let page: string;
  const KEY = "council-key-6f1d2a9e7c";
  const db = () => t.app.civic.database.db;
  const department = () => db().selectFrom("departments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const save = (fields: Record<string, string>) => admin.post(`${page}/delivery`, fields, page);

  beforeAll(async () => {
    council = new FakeCouncil();
    await council.start();
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_WRITE_MAX: "1000", FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true" },
    });
    admin = await signInAs(t.app, "admin@example.org", "admin");
    const row = await db()
      .selectFrom("categories")
      .select("department_id")
      .where("code", "=", "streetlight")
      .executeTakeFirstOrThrow();
    id = row.department_id as number;
    page = `/admin/departments/${id}`;
  });
  afterAll(async () => {
    await t?.close();
    await council?.stop();
  });

  it("shows the method (email at first), a key field of type password and a field per category", async () => {
    const res = await admin.get(page);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("How reports reach this department");
    expect(res.body).toContain("Now: by email to wrenvale-streetlighting@example.org.");
    expect(res.body).toMatch(/<input type="radio" id="admin-method-email" name="method" value="email" checked/);
    expect(res.body).toMatch(/<input[^>]*type="password"[^>]*autocomplete="new-password"/);
    expect(res.body).toContain("No key is stored.");
    expect(res.body).toContain('name="service:streetlight"');
    const list = await admin.get("/admin/departments");
    expect(list.body).toContain('<td data-label="By">Email</td>');
  });

  it("refuses bad input with the error at its field (400), keeps what was typed and never echoes a key", async () => {
    const bad = await save({ method: "open311", endpoint: "ftp://council.example.org/", api_key: KEY });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("<title>Error: ");
    expect(bad.body).toContain('href="#admin-endpoint"');
    expect(bad.body).toMatch(/id="admin-endpoint-error"[^]*Enter the endpoint/);
    expect(bad.body).toMatch(/id="admin-endpoint"[^>]*aria-invalid="true"/);
    expect(bad.body).toContain('value="ftp://council.example.org/"');
    expect(bad.body).not.toContain(KEY);

    const mapping = await save({ method: "open311", endpoint: council.url, attributes: "lamp_id" });
    expect(mapping.statusCode).toBe(400);
    expect(mapping.body).toMatch(/id="admin-attributes-error"[^]*is not code=code/);
    expect(mapping.body).toContain("lamp_id</textarea>");

    const code = await save({ method: "open311", endpoint: council.url, "service:streetlight": "street light" });
    expect(code.statusCode).toBe(400);
    expect(code.body).toContain('href="#admin-service-streetlight"');
    expect(code.body).toMatch(/id="admin-service-streetlight-error"[^]*Codes are 1 to 100 letters/);
    expect(code.body).toMatch(
      /id="admin-service-streetlight"[^>]*aria-describedby="admin-service-streetlight-error"[^>]*aria-invalid="true"/,
    );
    expect(code.body).toContain('value="street light"');

    const none = await save({ endpoint: council.url });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain("Choose email or Open311.");
    expect((await department()).delivery).toBe("email");
  });

  it("saves Open311 with a sealed key it never shows again, audited without the key", async () => {
    const res = await save({
      method: "open311",
      endpoint: council.url,
      api_key: KEY,
      jurisdiction: "wrenvale",
      "service:streetlight": "nothing_like_it",
      attributes: "fault_type = fault\nlamp_id=lamp_post_number",
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${page}?done=delivery-key`);
    const shown = await admin.get(res.headers.location as string);
    expect(shown.body).toContain("The API key is stored sealed; it is not shown again.");
    expect(shown.body).toContain("A key is stored. Leave this empty to keep it.");
    expect(shown.body).toContain("through the council’s Open311 service at");
    expect(shown.body).toContain('value="nothing_like_it"');
    expect(shown.body).toContain("fault_type=fault\nlamp_id=lamp_post_number</textarea>");
    expect(shown.body).not.toContain(KEY);
    const stored = await department();
    expect(stored).toMatchObject({
      delivery: "open311",
      open311_endpoint: council.url,
      open311_jurisdiction: "wrenvale",
    });
    expect(JSON.parse(stored.open311_services)).toEqual({ streetlight: "nothing_like_it" });
    expect(JSON.parse(stored.open311_attributes)).toEqual({ fault_type: "fault", lamp_id: "lamp_post_number" });
    expect(stored.open311_key_sealed).toBeTruthy();
    expect(JSON.stringify(stored)).not.toContain(KEY);
    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "department.delivery")
      .orderBy("id")
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor_id).toBe(admin.accountId);
    expect(JSON.stringify(audit)).not.toContain(KEY);
    expect(JSON.parse(audit[0]?.details ?? "{}")).toMatchObject({ delivery: "open311", api_key: "changed" });

    // Saved again with the key field empty: the stored key stays.
    const again = await save({
      method: "open311",
      endpoint: council.url,
      "service:streetlight": "streetlight",
      attributes: "fault_type=fault\nlamp_id=lamp_post_number",
    });
    expect(again.headers.location).toBe(`${page}?done=delivery`);
    expect((await department()).open311_key_sealed).toBe(stored.open311_key_sealed);
    const list = await admin.get("/admin/departments");
    expect(list.body).toContain('<td data-label="By">Open311</td>');
  });

  it("sets the council's status table over the default one, with a wrong pair refused at its field", async () => {
    // The mapping the next tests use stays as the previous test left it.
    const kept = {
      method: "open311",
      endpoint: council.url,
      "service:streetlight": "streetlight",
      attributes: "fault_type=fault\nlamp_id=lamp_post_number",
    };
    const page1 = await admin.get(page);
    expect(page1.body).toContain("The council’s statuses as ours (optional)");
    expect(page1.body).toMatch(/Over the default table: [^<]*closed=fixed/);
    const bad = await save({ ...kept, statuses: "closed=duplicate" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/id="admin-statuses-error"[^]*is not one of/);
    expect(bad.body).toContain("closed=duplicate</textarea>");
    const res = await save({ ...kept, statuses: "Closed = closed\nwaiting=ignore" });
    expect(res.statusCode).toBe(303);
    expect(JSON.parse((await department()).open311_statuses ?? "{}")).toEqual({ closed: "closed", waiting: "ignore" });
    expect((await admin.get(page)).body).toContain("closed=closed\nwaiting=ignore</textarea>");
    // Emptied: the default table alone again.
    await save({ ...kept, statuses: "" });
    expect(JSON.parse((await department()).open311_statuses ?? "{}")).toEqual({});
  });

  it("checks the connection: what maps, the council's services and required questions nothing answers", async () => {
    const res = await admin.post(`${page}/check`, {}, page);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("The council offers 2 services");
    expect(res.body).toMatch(/<code>streetlight<\/code><\/td><td data-label="Result">Maps<\/td>/);
    expect(res.body).toMatch(/Council services no category maps to<\/h4><ul><li><code>potholes<\/code>: Potholes/);
    // lamp_id is answered (by lamp_post_number); colour is required and answered by nothing.
    expect(res.body).toContain("<code>colour</code> of service <code>streetlight</code>: Colour of the light");
    expect(res.body).not.toContain("<code>lamp_id</code> of service");

    await save({ method: "open311", endpoint: council.url, "service:streetlight": "", attributes: "" });
    const unmapped = await admin.post(`${page}/check`, {}, page);
    expect(unmapped.body).toMatch(/<td data-label="Result">Not mapped<\/td>/);
  });

  it("shows a council's error text escaped when the check fails", async () => {
    council.failing = true;
    try {
      const res = await admin.post(`${page}/check`, {}, page);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain("Could not read the council’s services: HTTP 500: &lt;b>Down&lt;/b> for maintenance");
      expect(res.body).not.toContain("<b>Down</b>");
    } finally {
      council.failing = false;
    }
  });

  it("switches back to email, keeping the Open311 settings; only admins may change it", async () => {
    const res = await save({ method: "email" });
    expect(res.statusCode).toBe(303);
    expect(await department()).toMatchObject({ delivery: "email", open311_endpoint: council.url });
    const moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    const refused = await moderator.post(`${page}/delivery`, { method: "open311", endpoint: council.url }, "/account");
    expect([401, 403]).toContain(refused.statusCode);
    expect((await department()).delivery).toBe("email");
  });

  it("tells residents and operators about forwarding: the privacy notice and /llms.txt", async () => {
    const privacy = (await t.app.inject("/privacy")).body;
    expect(privacy).toContain("by email or through the council’s Open311 service");
    expect(privacy).toContain(
      "Your name, email address and phone number go with it only when you ticked that the council may contact you",
    );
    const llms = (await t.app.inject("/llms.txt")).body;
    expect(llms).toContain("by email or through the council's Open311 GeoReport v2 service");
    expect(llms).toContain("go to the council only when they ticked that the council may contact them");
  });
});
