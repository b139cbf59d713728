import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pgTimestamptzToIso } from "../../src/core/db/database.js";

/** The fast timestamptz parser gives exactly what `new Date(v).toISOString()` gave, for every form PostgreSQL sends. */
describe("PostgreSQL timestamptz to ISO 8601", () => {
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  it("matches Date for any UTC timestamp PostgreSQL prints, with 0 to 6 fraction digits", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: 0, max: 6 }),
        (d, micros, digits) => {
          const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
          const fraction = digits === 0 ? "" : `.${pad(micros, 6).slice(0, digits)}`;
          const text = `${base}${fraction}+00`;
          expect(pgTimestamptzToIso(text)).toBe(new Date(text).toISOString());
        },
      ),
      { numRuns: 2000 },
    );
  });
  it("leaves other zones and forms to Date", () => {
    for (const text of ["2026-11-24 07:08:25.5+01", "2026-11-24 06:08:25+05:30"]) {
      expect(pgTimestamptzToIso(text)).toBe(new Date(text).toISOString());
    }
  });
});
