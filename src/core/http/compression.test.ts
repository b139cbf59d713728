import { describe, expect, it } from "vitest";
import { encodedEtag, isCompressibleType, negotiateEncoding } from "./compression.js";

describe("compression", () => {
  it("negotiates per RFC 9110 §12.5.3: highest q-value, ties to brotli then gzip, identity unless refused", () => {
    expect(negotiateEncoding(undefined)).toBe("identity");
    expect(negotiateEncoding("br, gzip")).toBe("br");
    expect(negotiateEncoding("gzip, br")).toBe("br");
    expect(negotiateEncoding("gzip")).toBe("gzip");
    expect(negotiateEncoding(["gzip", "br;q=0.4"])).toBe("gzip");
    expect(negotiateEncoding("identity;q=1, *;q=0")).toBe("identity");
    expect(negotiateEncoding("deflate")).toBe("identity");
    expect(negotiateEncoding("br;q=0, *")).toBe("gzip");
    // Nothing acceptable: identity anyway, never a 406.
    expect(negotiateEncoding("identity;q=0, deflate")).toBe("identity");
    expect(negotiateEncoding("br;q=abc, gzip")).toBe("gzip");
  });

  it("compresses text of every kind, never images or archives", () => {
    for (const type of [
      "text/html; charset=utf-8",
      "text/css",
      "text/javascript; charset=utf-8",
      "application/json",
      "application/problem+json",
      "application/ld+json",
      "application/atom+xml; charset=utf-8",
      "application/xml",
      "application/yaml; charset=utf-8",
      "application/manifest+json",
      "image/svg+xml",
    ]) {
      expect(isCompressibleType(type), type).toBe(true);
    }
    for (const type of [
      "image/jpeg",
      "image/png",
      "application/zip",
      "application/octet-stream",
      "application/jsonx",
      "text/event-stream",
    ]) {
      expect(isCompressibleType(type), type).toBe(false);
    }
  });

  it("names each encoding's bytes with its own strong tag", () => {
    expect(encodedEtag('"abc"', "br")).toBe('"abc-br"');
    expect(encodedEtag('"abc"', "gzip")).toBe('"abc-gzip"');
    expect(encodedEtag('"abc"', "identity")).toBe('"abc"');
  });
});
