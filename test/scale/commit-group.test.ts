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

  // SQLite's group alone: on PostgreSQL each write commits on its own (the next test).
  it.skipIf(dialect === "postgres")(
    "settles no write before its commit: a commit that fails rejects the whole group, which stored nothing",
    async () => {
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
    },
  );

  it("settles each write only once it is committed; a write whose commit fails stores nothing", async () => {
    const db = t.database.db;
    // A foreign key checked at commit, on both databases: a work that breaks it fails only when it commits.
    await sql`create table commit_probe (id integer primary key, parent integer
      references commit_probe (id) deferrable initially deferred)`.execute(db);
    const probe = async () =>
      (await sql<{ id: number }>`select id from commit_probe order by id`.execute(db)).rows.map((r) => Number(r.id));
    /** What another query sees at the moment each work settles. */
    const seenAtSettle = new Map<number, number[]>();
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((id) =>
        inCommittedTransaction(t.database, async (tx) => {
          await sql`insert into commit_probe (id, parent) values (${id}, ${id === 2 ? 999 : null})`.execute(tx);
          return id;
        }).then(async (value) => {
          seenAtSettle.set(id, await probe());
          return value;
        }),
      ),
    );
    if (dialect === "sqlite") {
      // One group, one commit: its failure rejects every work of the group.
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected", "rejected"]);
      expect(await probe()).toEqual([]);
    } else {
      // One transaction each: only the work whose commit failed is rejected, and nothing of it is stored.
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/foreign key/i);
      expect(await probe()).toEqual([1, 3, 4]);
      // A settled write was committed: another connection of the pool already saw it.
      for (const id of [1, 3, 4]) expect(seenAtSettle.get(id), `work ${id}`).toContain(id);
    }
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
