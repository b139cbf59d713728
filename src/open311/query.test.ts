import { describe, expect, it } from "vitest";
import { isAppError } from "../core/http/errors.js";
import { parseRequestsQuery, parseW3cDatetime, referenceCandidates, statusesFor } from "./query.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const DAY = 86_400_000;

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return error.fields[0]?.field;
    throw error;
  }
  return undefined;
}

describe("parseW3cDatetime", () => {
  it("reads the W3C profile with a timezone, and dates as whole UTC days", () => {
    expect(parseW3cDatetime("start_date", "2026-01-02T03:04:05Z", false).toISOString()).toBe(
      "2026-01-02T03:04:05.000Z",
    );
    expect(parseW3cDatetime("start_date", "2026-01-02T03:04+01:00", false).toISOString()).toBe(
      "2026-01-02T02:04:00.000Z",
    );
    expect(parseW3cDatetime("start_date", "2026-01-02T03:04:05.123456-05:00", false).toISOString()).toBe(
      "2026-01-02T08:04:05.123Z",
    );
    // "+" decoded to a space by the query string.
    expect(parseW3cDatetime("start_date", "2026-01-02T03:04:05 02:00", false).toISOString()).toBe(
      "2026-01-02T01:04:05.000Z",
    );
    expect(parseW3cDatetime("start_date", "2026-01-02", false).toISOString()).toBe("2026-01-02T00:00:00.000Z");
    expect(parseW3cDatetime("end_date", "2026-01-02", true).toISOString()).toBe("2026-01-02T23:59:59.999Z");
  });

  it("reads ISO 8601 offsets with and without the colon (Python's %z writes +0000 and -0500)", () => {
    for (const [given, utc] of [
      ["2026-11-01T00:00:00+0000", "2026-11-01T00:00:00.000Z"],
      ["2026-11-01T00:00:00-0500", "2026-11-01T05:00:00.000Z"],
      ["2026-11-01T00:00:00+00:00", "2026-11-01T00:00:00.000Z"],
      ["2026-11-01T00:00:00Z", "2026-11-01T00:00:00.000Z"],
      ["2026-11-01T00:00+0130", "2026-10-31T22:30:00.000Z"],
      ["2026-11-01T00:00:00.5-0500", "2026-11-01T05:00:00.500Z"],
      // "+" decoded to a space by the query string.
      ["2026-11-01T00:00:00 0100", "2026-10-31T23:00:00.000Z"],
    ] as const) {
      expect(parseW3cDatetime("start_date", given, false).toISOString(), given).toBe(utc);
    }
  });

  it("names the format when a time has no offset", () => {
    try {
      parseW3cDatetime("start_date", "2026-11-01T00:00:00", false);
      expect.unreachable();
    } catch (error) {
      expect(isAppError(error) && error.message).toMatch(/timezone.*Z.*\+01:00.*\+0100/);
    }
  });

  it("refuses datetimes without a timezone and impossible dates", () => {
    for (const bad of [
      "2026-01-02T03:04:05",
      "2026-02-30",
      "2026-01-02T25:00:00Z",
      "02/01/2026",
      "2026-1-2",
      "2026-01-02T03:04:05+1",
      "2026-01-02T03:04:05+01:0",
      "2026-01-02T03:04:05+2400",
    ]) {
      expect(
        fieldOf(() => parseW3cDatetime("start_date", bad, false)),
        bad,
      ).toBe("start_date");
    }
  });
});

describe("parseRequestsQuery", () => {
  it("defaults to the last 90 days, 1,000 per page, every status and service", () => {
    const f = parseRequestsQuery({}, NOW);
    expect(f).toEqual({
      kind: "search",
      serviceCodes: null,
      statuses: null,
      from: new Date(NOW.getTime() - 90 * DAY).toISOString(),
      to: NOW.toISOString(),
      near: null,
      limit: 1000,
      offset: 0,
    });
  });

  it("lets service_request_id override everything else, which must still be well-formed", () => {
    const window = { start_date: "2025-01-01", end_date: "2026-01-01" };
    expect(
      parseRequestsQuery({ service_request_id: "abcd-efgh, DEMO-0001,,", status: "closed", ...window }, NOW),
    ).toEqual({
      kind: "ids",
      references: ["ABCD-EFGH", "DEMO-0001"],
    });
    // A malformed parameter is a 400, as its pattern in the description says.
    expect(() => parseRequestsQuery({ service_request_id: "DEMO-0001", status: "bogus" }, NOW)).toThrow(/status/);
    expect(() => parseRequestsQuery({ service_request_id: "DEMO-0001", end_date: "x" }, NOW)).toThrow(/end_date/);
  });

  it("maps open/closed to the internal statuses", () => {
    expect(statusesFor("open").sort()).toEqual(["action_scheduled", "in_progress", "investigating", "open"]);
    expect(statusesFor("closed").sort()).toEqual(["closed", "duplicate", "fixed", "not_responsible"]);
    const f = parseRequestsQuery({ status: "closed" }, NOW);
    expect(f.kind === "search" && f.statuses?.sort()).toEqual(["closed", "duplicate", "fixed", "not_responsible"]);
    const both = parseRequestsQuery({ status: "open,closed" }, NOW);
    expect(both.kind === "search" && both.statuses).toBeNull();
  });

  it("keeps windows within 90 days and pairs lat/long", () => {
    expect(fieldOf(() => parseRequestsQuery({ start_date: "2026-01-01", end_date: "2026-04-02" }, NOW))).toBe(
      "end_date",
    );
    expect(
      fieldOf(() => parseRequestsQuery({ start_date: "2026-01-01", end_date: "2026-03-31" }, NOW)),
    ).toBeUndefined();
    const start = parseRequestsQuery({ start_date: "2026-01-01T00:00:00Z" }, NOW);
    expect(start.kind === "search" && start.to).toBe("2026-04-01T00:00:00.000Z");
    expect(fieldOf(() => parseRequestsQuery({ lat: 50.9 }, NOW))).toBe("long");
    expect(fieldOf(() => parseRequestsQuery({ radius: 100 }, NOW))).toBe("radius");
    const near = parseRequestsQuery({ lat: 50.9, long: -2, page: 3, page_size: 20 }, NOW);
    expect(near.kind === "search" && [near.near, near.limit, near.offset]).toEqual([
      { lat: 50.9, lng: -2, radiusM: 500 },
      20,
      40,
    ]);
  });

  it("reads references as typed or normalised", () => {
    expect(referenceCandidates(" k7qm3x9p ")).toEqual(["K7QM3X9P", "K7QM-3X9P"]);
    expect(referenceCandidates("HIDE-0001")).toEqual(["HIDE-0001"]);
    expect(referenceCandidates("demo-0001")).toEqual(["DEMO-0001"]);
  });
});
