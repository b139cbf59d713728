import { describe, expect, it } from "vitest";
import { redactDeep, redactEmails } from "../../src/core/http/redact.js";

describe("email redaction for logs", () => {
  it("removes plain and URL-encoded addresses", () => {
    expect(redactEmails("sent to jo.bloggs+civic@example.co.uk ok")).toBe("sent to [email] ok");
    expect(redactEmails("/status?email=jo%40example.org&x=1")).toBe("/status?email=[email]&x=1");
    expect(redactEmails("no address here")).toBe("no address here");
  });

  it("walks nested objects, arrays and errors", () => {
    const out = redactDeep({ to: ["a@example.org"], inner: { e: new Error("bad b@example.org") } }) as {
      to: string[];
      inner: { e: { message: string } };
    };
    expect(out.to[0]).toBe("[email]");
    expect(out.inner.e.message).toBe("bad [email]");
  });
});
