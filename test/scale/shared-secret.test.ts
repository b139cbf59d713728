import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { createTestDatabase, describeEachDb, testConfig } from "../helpers/app.js";

describeEachDb("the session secret without SESSION_SECRET", (dialect) => {
  it("is the first instance's, kept in the database: a form token from one instance is good on the other", async () => {
    const t = await createTestDatabase(dialect);
    const otherDir = mkdtempSync(join(tmpdir(), "civic-other-"));
    const env = { SESSION_SECRET: "", ...(t.url ? { DATABASE_URL: t.url } : {}) };
    const a = await buildApp(testConfig(t.dataDir, env), { logger: false, database: t.database });
    const second = t.reopen();
    const b = await buildApp(testConfig(otherDir, env), { logger: false, database: second });
    try {
      expect(a.civic.config.sessionSecret).toBe(b.civic.config.sessionSecret);
      expect(b.civic.formTokens.verify(a.civic.formTokens.issue())).not.toBeNull();
      const rows = await t.database.db.selectFrom("shared_secrets").selectAll().execute();
      expect(rows.map((r) => r.value)).toEqual([a.civic.config.sessionSecret]);
    } finally {
      await b.close();
      await a.close();
      await t.cleanup();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
