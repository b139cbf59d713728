import { afterAll, beforeAll, expect, it } from "vitest";
import { catalogueState } from "../../src/catalogue/version.js";
import { migrations } from "../../src/core/db/migrations/index.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/** Migration 0027 (issue 34): the catalogue's version counter also keeps when it last changed. */
describeEachDb("migration 0027_catalogue_changed_at", (dialect) => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await d?.cleanup();
  });

  it("stamps the time of every catalogue change, and goes down and up again", async () => {
    const db = d.database.db;
    const migration = migrations["0027_catalogue_changed_at"];
    if (!migration?.down) throw new Error("no migration 0027_catalogue_changed_at");
    await migration.down(db);
    const department = (name: string) => ({
      name,
      email: `${name}@example.org`,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    await db.insertInto("departments").values(department("roads")).execute();
    await migration.up(db);
    const first = await catalogueState(db);
    expect(first.changedAt).toBeInstanceOf(Date);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await db.insertInto("departments").values(department("parks")).execute();
    const second = await catalogueState(db);
    expect(second.version).toBe(first.version + 1);
    expect(second.changedAt!.getTime()).toBeGreaterThan(first.changedAt!.getTime());
  });
});
