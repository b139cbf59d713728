import { describe, expect, it } from "vitest";
import { ifNoneMatchMatches, parseEntityTags } from "./conditional.js";

describe("If-None-Match (RFC 9110)", () => {
  const etag = '"abc"';
  it("matches the same tag, weakly, in lists and with *", () => {
    expect(ifNoneMatchMatches('"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
    expect(ifNoneMatchMatches('"x", W/"abc" , "y"', etag)).toBe(true);
    expect(ifNoneMatchMatches("*", etag)).toBe(true);
  });
  it("does not match other tags, unquoted values or an absent header", () => {
    expect(ifNoneMatchMatches('"abcd"', etag)).toBe(false);
    expect(ifNoneMatchMatches("abc", etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
    expect(ifNoneMatchMatches("", etag)).toBe(false);
  });
  it("parses lists and ignores malformed members", () => {
    expect(parseEntityTags('"a", W/"b", junk, "c"')).toEqual(['"a"', '"b"', '"c"']);
    expect(parseEntityTags(" * ")).toBe("*");
  });
});
