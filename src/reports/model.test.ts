import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { AppError } from "../core/http/errors.js";
import { canTransition, open311Status, REPORT_STATUSES, STATUS_LABELS, TRANSITIONS } from "./model.js";
import { changeStatus } from "./events.js";
import { looksLikeReference, newReference, normaliseReference, REFERENCE_ALPHABET } from "./reference.js";

describe("report statuses", () => {
  it("maps every status to Open311's open or closed", () => {
    expect(REPORT_STATUSES.filter((s) => open311Status(s) === "open")).toEqual([
      "open",
      "investigating",
      "in_progress",
      "action_scheduled",
    ]);
    expect(REPORT_STATUSES.filter((s) => open311Status(s) === "closed")).toEqual([
      "fixed",
      "closed",
      "duplicate",
      "not_responsible",
    ]);
  });

  it("has a public label for each status", () => {
    expect(STATUS_LABELS.not_responsible).toBe("Not the council's responsibility");
    expect(STATUS_LABELS.in_progress).toBe("In progress");
  });

  it("allows the documented transitions and nothing else", () => {
    expect(canTransition("open", "fixed")).toBe(true);
    expect(canTransition("investigating", "duplicate")).toBe(true);
    expect(canTransition("in_progress", "duplicate")).toBe(false);
    expect(canTransition("in_progress", "open")).toBe(false);
    expect(canTransition("action_scheduled", "in_progress")).toBe(true);
    expect(canTransition("fixed", "open")).toBe(true);
    expect(canTransition("fixed", "closed")).toBe(false);
    expect(canTransition("duplicate", "open")).toBe(true);
    expect(canTransition("not_responsible", "fixed")).toBe(false);
    for (const s of REPORT_STATUSES) expect(canTransition(s, s)).toBe(false);
    // Every finished state can only be reopened.
    for (const s of ["fixed", "closed", "duplicate", "not_responsible"] as const)
      expect(TRANSITIONS[s]).toEqual(["open"]);
  });
});

describe("reference numbers", () => {
  it("are 8 unambiguous characters in two groups, never with a D", () => {
    for (let i = 0; i < 2000; i++) {
      const ref = newReference();
      expect(ref).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      expect(ref).not.toMatch(/[DILOU]/);
      expect(looksLikeReference(ref)).toBe(true);
    }
    expect(REFERENCE_ALPHABET).toHaveLength(31);
  });

  it("normalises what people type", () => {
    expect(normaliseReference(" k7qm 3x9p ")).toBe("K7QM-3X9P");
    expect(normaliseReference("k7qmox9p")).toBe("K7QM-0X9P");
    expect(normaliseReference("demo-0001")).toBe("DEMO-0001");
    expect(normaliseReference("demo0001")).toBe("DEMO-0001");
  });
});

describeEachDb("changeStatus", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  it("changes the status along the table and keeps every change with its note and time", async () => {
    const db = t.app.civic.database.db;
    const report = await db
      .selectFrom("reports")
      .select(["id"])
      .where("status", "=", "open")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    await changeStatus(
      db,
      report.id,
      "investigating",
      "  Passed to the highways team.  ",
      new Date("2026-11-20T10:00:00Z"),
    );
    await changeStatus(db, report.id, "fixed", "Filled.", new Date("2026-11-21T10:00:00Z"));
    const row = await db
      .selectFrom("reports")
      .select(["status", "updated_at"])
      .where("id", "=", report.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "fixed", updated_at: "2026-11-21T10:00:00.000Z" });
    const history = await db
      .selectFrom("report_updates")
      .select(["status", "previous_status", "note", "created_at"])
      .where("report_id", "=", report.id)
      .orderBy("id")
      .execute();
    expect(history.slice(-2)).toEqual([
      {
        status: "investigating",
        previous_status: "open",
        note: "Passed to the highways team.",
        created_at: "2026-11-20T10:00:00.000Z",
      },
      { status: "fixed", previous_status: "investigating", note: "Filled.", created_at: "2026-11-21T10:00:00.000Z" },
    ]);

    const refused = await changeStatus(db, report.id, "in_progress", "", new Date()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("validation_failed");
    expect((refused as AppError).fields[0]?.field).toBe("status");
    const after = await db.selectFrom("report_updates").select("id").where("report_id", "=", report.id).execute();
    expect(after).toHaveLength(history.length);

    await changeStatus(
      db,
      report.id,
      "open",
      "Reopened after review: the hole is back.",
      new Date("2026-11-22T09:00:00Z"),
    );
    const reopened = await db
      .selectFrom("reports")
      .select("status")
      .where("id", "=", report.id)
      .executeTakeFirstOrThrow();
    expect(reopened.status).toBe("open");
  });

  it("answers not_found for an unknown report", async () => {
    const err = await changeStatus(t.app.civic.database.db, 999_999, "fixed", "", new Date()).catch((e: unknown) => e);
    expect((err as AppError).code).toBe("not_found");
  });
});
