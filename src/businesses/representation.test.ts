import { describe, expect, it } from "vitest";
import { negotiateEncoding, Prepared } from "./representation.js";

describe("content negotiation and validators", () => {
  it("picks the encoding by q-value, preferring brotli, then gzip, on ties", () => {
    expect(negotiateEncoding(undefined)).toBe("identity");
    expect(negotiateEncoding("")).toBe("identity");
    expect(negotiateEncoding("gzip, deflate, br")).toBe("br");
    expect(negotiateEncoding("gzip")).toBe("gzip");
    expect(negotiateEncoding("x-gzip")).toBe("gzip");
    expect(negotiateEncoding("br;q=0.5, gzip;q=0.8")).toBe("gzip");
    expect(negotiateEncoding("*")).toBe("br");
    expect(negotiateEncoding("*;q=0, identity")).toBe("identity");
    expect(negotiateEncoding("br;q=0, gzip;q=0")).toBe("identity");
    expect(negotiateEncoding("deflate")).toBe("identity");
    expect(negotiateEncoding(["gzip", "br;q=0.1"])).toBe("gzip");
  });

  it("gives every encoding its own strong tag and keeps the bytes it made", () => {
    const p = new Prepared(Buffer.from(JSON.stringify({ a: "x".repeat(1000) })), "v1");
    expect([p.etag("identity"), p.etag("gzip"), p.etag("br")]).toEqual(['"v1"', '"v1-gzip"', '"v1-br"']);
    expect(p.body("br")).toBe(p.body("br"));
    expect(p.body("gzip").length).toBeLessThan(p.identity.length);
  });
});
