import { afterAll, beforeAll, expect, it } from "vitest";
import { migrations } from "../../src/core/db/migrations/index.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/**
 * Migration 0026 (issue 33): the Open311 reports filed before the fix under an account id a client named are no
 * longer that account's, and the keys of the old shared idempotency scopes go.
 */
describeEachDb("migration 0026_trust_api_clients", (dialect) => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await d?.cleanup();
  });

  it("detaches Open311 reports from accounts and drops the old shared keys", async () => {
    const db = d.database.db;
    const migration = migrations["0026_trust_api_clients"];
    if (!migration?.down) throw new Error("no migration 0026_trust_api_clients");
    await migration.down(db);
    const at = new Date().toISOString();
    const report = (reference: string, source: "web" | "open311") => ({
      reference,
      category_code: "pothole",
      title: "A report",
      description: "A report.",
      latitude: 50.9862,
      longitude: -2.0437,
      attributes: "{}",
      status: "open" as const,
      visibility: "public" as const,
      share_contact: 0,
      source,
      account_id: "resident-account",
      created_at: at,
      updated_at: at,
    });
    await db
      .insertInto("categories")
      .values({
        code: "pothole",
        name: "Pothole",
        description: "Holes in the road.",
        keywords: "[]",
        attributes: "[]",
        is_public: 1,
        sort_order: 1,
      })
      .onConflict((oc) => oc.column("code").doNothing())
      .execute();
    await db
      .insertInto("reports")
      .values([report("OPEN-0311", "open311"), report("WEBF-0RM1", "web")])
      .execute();
    const key = (scope: string) => ({
      scope,
      key: "k1",
      fingerprint: "f",
      owner: "o",
      state: "done",
      status: 200,
      headers: "{}",
      body: "[]",
      created_at: at,
      locked_until: null,
      expires_at: at,
    });
    await db
      .insertInto("idempotency_keys")
      .values([key("open311"), key("report"), key("report:anonymous")])
      .execute();

    await migration.up(db);
    const owners = await db.selectFrom("reports").select(["reference", "account_id"]).orderBy("reference").execute();
    expect(owners).toEqual([
      { reference: "OPEN-0311", account_id: null },
      { reference: "WEBF-0RM1", account_id: "resident-account" },
    ]);
    const scopes = await db.selectFrom("idempotency_keys").select(["scope", "resource"]).execute();
    expect(scopes).toEqual([{ scope: "report:anonymous", resource: null }]);
  });
});
