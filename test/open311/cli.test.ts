import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { findActiveApiKey, hashApiKey } from "../../src/open311/keys.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

describeEachDb("civic api-keys", (dialect) => {
  let tdb: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    tdb = await createTestDatabase(dialect);
    env = {
      DATA_DIR: tdb.dataDir,
      SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      ...(tdb.url ? { DATABASE_URL: tdb.url } : {}),
    };
  });
  afterAll(async () => {
    await tdb?.cleanup();
  });

  async function civic(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  it("creates a key, prints it once and stores only its sha256", async () => {
    const created = await civic("api-keys", "create", "--name", "Village app");
    expect(created.code).toBe(0);
    const key = /^(civic_[A-Za-z0-9_-]{32})$/m.exec(created.out)?.[1];
    expect(key).toBeDefined();
    const rows = await tdb.database.db.selectFrom("api_keys").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_hash).toBe(hashApiKey(key as string));
    expect(JSON.stringify(rows)).not.toContain(key as string);
    expect(await findActiveApiKey(tdb.database.db, key as string)).toEqual({ id: rows[0]?.id, name: "Village app" });

    const listed = await civic("api-keys", "list");
    expect(listed.code).toBe(0);
    expect(listed.out).toContain("Village app");
    expect(listed.out).toContain("active");
    expect(listed.out).toContain((key as string).slice(0, 12));
    expect(listed.out).not.toContain(key as string);

    const revoked = await civic("api-keys", "revoke", String(rows[0]?.id));
    expect(revoked.code).toBe(0);
    expect(await findActiveApiKey(tdb.database.db, key as string)).toBeNull();
    expect((await civic("api-keys", "list")).out).toContain("revoked");
    expect((await civic("api-keys", "revoke", String(rows[0]?.id))).code).toBe(1);
  });

  it("explains its usage", async () => {
    expect((await civic("api-keys", "create")).code).toBe(2);
    expect((await civic("api-keys", "revoke", "abc")).code).toBe(2);
    expect((await civic("api-keys", "revoke")).code).toBe(2);
    expect((await civic("help")).out).toContain("api-keys create");
  });
});
