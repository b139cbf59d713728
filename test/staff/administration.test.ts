import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** Admin-only pages: staff roles and Open311 API keys, each action audited. */
describeEachDb("staff administration", (dialect) => {
  let t: TestApp;
  let admin: SignedIn;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    admin = await signInAs(t.app, "admin@example.org", "admin");
    await signInAs(t.app, "helper@example.org", "resident");
  });
  afterAll(async () => t?.close());

  const audit = (action: string) =>
    t.app.civic.database.db.selectFrom("audit_log").selectAll().where("action", "=", action).execute();

  it("grants and revokes staff roles, refuses unknown accounts and keeps the last admin", async () => {
    const granted = await admin.post("/admin/staff", {
      email: "Helper@example.org",
      role: "moderator",
      reason: "New volunteer",
    });
    expect(granted.statusCode).toBe(303);
    const page = await admin.get("/admin/staff");
    expect(page.body).toContain("helper@example.org");
    const [grant] = await audit("role.grant");
    expect(grant!.reason).toBe("New volunteer");
    expect(JSON.parse(grant!.details)).toEqual({ from: "resident", to: "moderator" });

    const unknown = await admin.post("/admin/staff", { email: "nobody@example.org", role: "moderator" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain("There is no account with this email address");
    expect(unknown.body).toContain('value="nobody@example.org"');

    const last = await admin.post("/admin/staff", { email: "admin@example.org", role: "resident" });
    expect(last.statusCode).toBe(400);
    expect(last.body).toContain("last administrator");

    const revoked = await admin.post("/admin/staff", { email: "helper@example.org", role: "resident" });
    expect(revoked.statusCode).toBe(303);
    expect(await audit("role.revoke")).toHaveLength(1);
  });

  it("creates an API key shown once, lists it by prefix and revokes it", async () => {
    const created = await admin.post("/admin/api-keys", { name: "Parish council app" });
    expect(created.statusCode).toBe(200);
    const key = /<code>([A-Za-z0-9_-]{20,})<\/code>/.exec(created.body)?.[1];
    expect(key).toBeTruthy();
    const ok = await t.app.inject({ method: "GET", url: `/api/v2/services.json?api_key=${key}` });
    expect(ok.statusCode).toBe(200);

    const listing = await admin.get("/admin/api-keys");
    expect(listing.body).toContain("Parish council app");
    expect(listing.body).not.toContain(key!);

    const [row] = await t.app.civic.database.db.selectFrom("api_keys").select("id").execute();
    const revoke = await admin.post(`/admin/api-keys/${row!.id}/revoke`, {});
    expect(revoke.statusCode).toBe(303);
    const again = await admin.post(`/admin/api-keys/${row!.id}/revoke`, {});
    expect(again.statusCode).toBe(404);
    expect(await audit("api_key.create")).toHaveLength(1);
    expect(await audit("api_key.revoke")).toHaveLength(1);

    const empty = await admin.post("/admin/api-keys", { name: "  " });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain("Enter a name for the key");
  });
});
