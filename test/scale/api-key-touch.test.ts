import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiKeyTouches, createApiKey, TOUCH_EVERY_MS, touchApiKey } from "../../src/open311/keys.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/** A busy key's "last used" is written once a minute, not with every report (each write is a synced commit). */
describeEachDb("API key last use, to the minute", (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(dialect);
  });
  afterAll(async () => t?.cleanup());
  const lastUsedOf = async (id: number) =>
    (await t.database.db.selectFrom("api_keys").select("last_used_at").where("id", "=", id).executeTakeFirstOrThrow())
      .last_used_at;

  it("is set on first use, kept within a minute and moved on after it", async () => {
    const db = t.database.db;
    const start = new Date("2026-11-24T06:00:00.000Z");
    const key = await createApiKey(db, "busy", start);
    const lastUsed = () => lastUsedOf(key.id);
    expect(await lastUsed()).toBeNull();
    await touchApiKey(db, key.id, start);
    expect(await lastUsed()).toBe(start.toISOString());
    await touchApiKey(db, key.id, new Date(start.getTime() + TOUCH_EVERY_MS - 1));
    expect(await lastUsed()).toBe(start.toISOString());
    const later = new Date(start.getTime() + TOUCH_EVERY_MS + 1);
    await touchApiKey(db, key.id, later);
    expect(await lastUsed()).toBe(later.toISOString());
  });

  it("costs a process no statement within a minute of its own write, and stays within a minute with two", async () => {
    const db = t.database.db;
    const start = new Date("2026-11-24T07:00:00.000Z");
    const key = await createApiKey(db, "two processes", start);
    const lastUsed = () => lastUsedOf(key.id);
    const a = new ApiKeyTouches();
    const b = new ApiKeyTouches();
    await a.touch(db, key.id, start);
    expect(await lastUsed()).toBe(start.toISOString());
    // Within the minute process a does not ask the database at all: a value put there meanwhile stays.
    await db
      .updateTable("api_keys")
      .set({ last_used_at: "2000-01-01T00:00:00.000Z" })
      .where("id", "=", key.id)
      .execute();
    await a.touch(db, key.id, new Date(start.getTime() + 1000));
    expect(await lastUsed()).toBe("2000-01-01T00:00:00.000Z");
    // Process b knows nothing of a's write and writes (the stored time is stale).
    const byB = new Date(start.getTime() + 2000);
    await b.touch(db, key.id, byB);
    expect(await lastUsed()).toBe(byB.toISOString());
    // A minute after its own write, a writes again (the stored time is then a minute behind).
    const later = new Date(start.getTime() + TOUCH_EVERY_MS + 2001);
    await a.touch(db, key.id, later);
    expect(await lastUsed()).toBe(later.toISOString());
  });
});
