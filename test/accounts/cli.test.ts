import { afterEach, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

describeEachDb("civic users", (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const env = { DATA_DIR: t!.dataDir, LOG_LEVEL: "silent", ...(t!.url ? { DATABASE_URL: t!.url } : {}) };
    const code = await runCli(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  it("makes the first admin, lists accounts, and takes roles away", async () => {
    t = await createTestDatabase(dialect);
    expect((await run(["users", "list"])).out).toContain("No accounts yet");
    const granted = await run(["users", "grant", "Admin@Example.org", "admin"]);
    expect(granted.code).toBe(0);
    expect(granted.out).toContain("admin@example.org is now an admin");
    expect((await run(["users", "grant", "mod@example.org", "moderator"])).code).toBe(0);
    const list = await run(["users", "list"]);
    expect(list.out).toMatch(/admin@example\.org\tadmin\tactive/);
    expect(list.out).toMatch(/mod@example\.org\tmoderator\tactive/);

    const wrong = await run(["users", "revoke", "mod@example.org", "admin"]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain("does not have the role admin");
    expect((await run(["users", "revoke", "mod@example.org", "moderator"])).code).toBe(0);
    expect((await run(["users", "list"])).out).toMatch(/mod@example\.org\tresident/);

    // Every role change by the command line is in the audit log, with the command line as the actor.
    const rows = await t.database.db.selectFrom("audit_log").selectAll().orderBy("id").execute();
    expect(rows.map((r) => [r.actor_id, r.action, JSON.parse(r.details)])).toEqual([
      ["command-line", "role.grant", { from: "resident", to: "admin" }],
      ["command-line", "role.grant", { from: "resident", to: "moderator" }],
      ["command-line", "role.revoke", { from: "moderator", to: "resident" }],
    ]);

    expect((await run(["users", "grant", "not-an-email", "admin"])).code).toBe(2);
    expect((await run(["users", "grant", "a@example.org", "emperor"])).code).toBe(2);
    expect((await run(["users", "grant", "a@example.org"])).code).toBe(2);
  });
});
