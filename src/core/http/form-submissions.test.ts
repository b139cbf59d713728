import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../../../test/helpers/app.js";
import { FormTokens } from "./csrf.js";
import {
  deleteExpiredSubmissions,
  earlierSubmission,
  formSubmissionKey,
  recordSubmission,
} from "./form-submissions.js";

describeEachDb("form submissions", (dialect) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(dialect);
  });
  afterEach(async () => db.cleanup());

  it("records a token once, refuses a second record, and forgets it once the token has expired", async () => {
    const issued = new Date("2026-11-22T12:00:00.000Z");
    const tokens = new FormTokens("test-secret-test-secret-test-secret-0123", () => issued.getTime());
    const token = tokens.verify(tokens.issue());
    if (!token) throw new Error("token did not verify");
    const key = formSubmissionKey(token, "report");
    const other = formSubmissionKey(token, "idea");
    await recordSubmission(db.database.db, key, "ABCD-EFGH", issued);
    await expect(recordSubmission(db.database.db, key, "WXYZ-0000", issued)).rejects.toThrow();
    expect(await earlierSubmission(db.database.db, key)).toBe("ABCD-EFGH");
    expect(await earlierSubmission(db.database.db, other)).toBeUndefined();

    await deleteExpiredSubmissions(db.database.db, new Date(issued.getTime() + 23 * 3_600_000));
    expect(await earlierSubmission(db.database.db, key)).toBe("ABCD-EFGH");
    // The token itself no longer verifies after 24 hours, so its record is no longer needed.
    await deleteExpiredSubmissions(db.database.db, new Date(issued.getTime() + 25 * 3_600_000));
    expect(await earlierSubmission(db.database.db, key)).toBeUndefined();
  });
});
