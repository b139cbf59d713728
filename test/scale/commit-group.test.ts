import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CommitGroup, inCommittedTransaction } from "../../src/core/db/commit-group.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";

/** Writes made in the same turn share one commit on SQLite (one fsync); each still settles only once committed. */
describeEachDb("writes committed together", (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(dialect);
  });
  afterAll(async () => t?.cleanup());

  const pattern = (p: string) => ({
    pattern: p,
    reason: "test",
    created_by: null,
    created_at: "2026-11-24T08:00:00.000Z",
  });
  const stored = async (prefix: string) =>
    (
      await t.database.db
        .selectFrom("banned_senders")
        .select("pattern")
        .where("pattern", "like", `${prefix}%`)
        .orderBy("pattern")
        .execute()
    ).map((r) => r.pattern);

  it("stores every write of a group, and a failing one alone is rolled back and rejected", async () => {
    // The failing work repeats a pattern stored before the group, so it fails whichever work commits first (on
    // PostgreSQL the works run on several connections, in no set order).
    await t.database.db.insertInto("banned_senders").values(pattern("a0.example")).execute();
    const results = await Promise.allSettled(
      ["a1.example", "a2.example", "a3.example", "a0.example", "a4.example"].map((p, i) =>
        inCommittedTransaction(t.database, async (tx) => {
          // The failing work's first statement succeeds: it is undone with the work.
          if (i === 3) await tx.insertInto("banned_senders").values(pattern("a9.example")).execute();
          await tx.insertInto("banned_senders").values(pattern(p)).execute();
          return p;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(await stored("a")).toEqual(["a0.example", "a1.example", "a2.example", "a3.example", "a4.example"]);
  });

  it("settles no write before its commit: a commit that fails rejects the whole group, which stored nothing", async () => {
    if (dialect === "postgres") return; // each write commits on its own there
    const group = new CommitGroup(t.database.db);
    const results = await Promise.allSettled(
      ["b1.example", "b2.example", "b3.example"].map((p, i) =>
        group.run(async (tx) => {
          await tx.insertInto("banned_senders").values(pattern(p)).execute();
          if (i === 1) {
            // A foreign key broken until the commit: the commit itself fails.
            await sql`pragma defer_foreign_keys = on`.execute(tx);
            await tx
              .insertInto("report_updates")
              .values({ report_id: 999_999, status: "open", previous_status: null, note: "", created_at: "x" })
              .execute();
          }
          return p;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await stored("b")).toEqual([]);
    // The group carries on with the next writes.
    await expect(
      group.run(async (tx) => tx.insertInto("banned_senders").values(pattern("b4.example")).execute()),
    ).resolves.toBeDefined();
    expect(await stored("b")).toEqual(["b4.example"]);
  });

  it("runs writes queued while a group commits in the next group", async () => {
    let later: Promise<unknown> | undefined;
    await inCommittedTransaction(t.database, async (tx) => {
      await tx.insertInto("banned_senders").values(pattern("c1.example")).execute();
      // Queued while this group runs (not awaited here: it settles after its own, later, commit).
      later = inCommittedTransaction(t.database, (tx2) =>
        tx2.insertInto("banned_senders").values(pattern("c2.example")).execute(),
      );
    });
    await later;
    expect(await stored("c")).toEqual(["c1.example", "c2.example"]);
  });
});
