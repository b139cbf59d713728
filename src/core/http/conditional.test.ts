import { describe, expect, it } from "vitest";
import { noneMatchSatisfied } from "./conditional.js";

describe("If-None-Match (RFC 9110)", () => {
  it("matches the same tag, weakly, in lists and with *", () => {
    const etag = '"abc"';
    expect(noneMatchSatisfied('"abc"', etag)).toBe(true);
    expect(noneMatchSatisfied('W/"abc"', etag)).toBe(true);
    expect(noneMatchSatisfied('"abc"', 'W/"abc"')).toBe(true);
    expect(noneMatchSatisfied('"x", W/"abc" , "y"', etag)).toBe(true);
    expect(noneMatchSatisfied("*", etag)).toBe(true);
  });

  it("does not match other tags, unquoted values, malformed lists or an absent header", () => {
    const etag = '"abc"';
    expect(noneMatchSatisfied('"abcd"', etag)).toBe(false);
    expect(noneMatchSatisfied("abc", etag)).toBe(false);
    expect(noneMatchSatisfied(undefined, etag)).toBe(false);
    expect(noneMatchSatisfied("", etag)).toBe(false);
  });

  it("evaluates lists with commas inside tags and refuses garbage between members", () => {
    const tag = '"abc-gzip"';
    expect(noneMatchSatisfied(tag, tag)).toBe(true);
    expect(noneMatchSatisfied('W/"abc-gzip"', tag)).toBe(true);
    expect(noneMatchSatisfied('"x", W/"y" ,"abc-gzip"', tag)).toBe(true);
    expect(noneMatchSatisfied("*", tag)).toBe(true);
    expect(noneMatchSatisfied('"abc"', tag)).toBe(false);
    expect(noneMatchSatisfied("abc-gzip", tag)).toBe(false);
    expect(noneMatchSatisfied('"a,b", "abc-gzip"', tag)).toBe(true);
    expect(noneMatchSatisfied('"x" garbage "abc-gzip"', tag)).toBe(false);
    expect(noneMatchSatisfied(undefined, tag)).toBe(false);
  });
});
