import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey, TOUCH_EVERY_MS, touchApiKey } from "../../src/open311/keys.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/** A busy key's "last used" is written once a minute, not with every report (each write is a synced commit). */
describeEachDb("API key last use, to the minute", (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(dialect);
  });
  afterAll(async () => t?.cleanup());

  it("is set on first use, kept within a minute and moved on after it", async () => {
    const db = t.database.db;
    const start = new Date("2026-11-24T06:00:00.000Z");
    const key = await createApiKey(db, "busy", start);
    const lastUsed = async () =>
      (await db.selectFrom("api_keys").select("last_used_at").where("id", "=", key.id).executeTakeFirstOrThrow())
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    await touchApiKey(db, key.id, start);
    expect(await lastUsed()).toBe(start.toISOString());
    await touchApiKey(db, key.id, new Date(start.getTime() + TOUCH_EVERY_MS - 1));
    expect(await lastUsed()).toBe(start.toISOString());
    const later = new Date(start.getTime() + TOUCH_EVERY_MS + 1);
    await touchApiKey(db, key.id, later);
    expect(await lastUsed()).toBe(later.toISOString());
  });
});
