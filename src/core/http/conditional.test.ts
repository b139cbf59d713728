import { describe, expect, it } from "vitest";
import { noneMatchSatisfied, notModified } from "./conditional.js";

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

describe("notModified", () => {
  const etag = '"abc"';
  const lastModified = new Date("2026-11-01T10:00:00.750Z");
  const http = (ms: number) => new Date(ms).toUTCString();
  it("decides on If-None-Match when it is sent, whatever If-Modified-Since says", () => {
    expect(notModified({ "if-none-match": etag }, { etag, lastModified })).toBe(true);
    expect(notModified({ "if-none-match": '"x"', "if-modified-since": http(Date.now()) }, { etag, lastModified })).toBe(
      false,
    );
  });
  it("reads If-Modified-Since at one-second resolution, and ignores one that is not a date", () => {
    expect(notModified({ "if-modified-since": http(lastModified.getTime()) }, { etag, lastModified })).toBe(true);
    expect(notModified({ "if-modified-since": http(lastModified.getTime() - 1000) }, { etag, lastModified })).toBe(
      false,
    );
    expect(notModified({ "if-modified-since": "soon" }, { etag, lastModified })).toBe(false);
    expect(notModified({ "if-modified-since": http(lastModified.getTime()) }, { etag })).toBe(false);
    expect(notModified({}, { etag, lastModified })).toBe(false);
  });
});
