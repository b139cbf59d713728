import type { Dialect } from "../../src/core/db/database.js";

/** Which databases the tests run on: TEST_DB=sqlite|postgres|both (default both). */
export function testDialects(): Dialect[] {
  const v = (process.env.TEST_DB ?? "both").toLowerCase();
  if (v === "sqlite") return ["sqlite"];
  if (v === "postgres" || v === "postgresql" || v === "pg") return ["postgres"];
  if (v === "both" || v === "") return ["sqlite", "postgres"];
  throw new Error(`TEST_DB="${v}" must be sqlite, postgres or both`);
}
