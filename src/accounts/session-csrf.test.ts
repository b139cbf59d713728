import { expect, it } from "vitest";
import { FormTokens } from "../core/http/csrf.js";
import { deviceClass } from "./devices.js";
import { issueSessionFormToken, isSessionFormToken } from "./session-csrf.js";

const secret = "test-secret-test-secret-test-secret-0123";

it("issues session form tokens that are valid form tokens, bound to one session", () => {
  const now = Date.UTC(2026, 10, 24, 12);
  const forms = new FormTokens(secret, () => now + 5_000);
  const token = issueSessionFormToken(secret, "session-a", now);
  // Every existing check still applies: signature, age, and the time the form was open.
  expect(forms.verify(token)).toEqual({ issuedAt: now, nonce: expect.any(String) });
  expect(isSessionFormToken(secret, "session-a", token)).toBe(true);
  expect(isSessionFormToken(secret, "session-b", token)).toBe(false);
  expect(isSessionFormToken(secret, "session-a", forms.issue())).toBe(false);
  expect(isSessionFormToken("another-secret-another-secret-another", "session-a", token)).toBe(false);
  for (const junk of [undefined, 42, "", "a.b", "a.b.c.d", "x".repeat(300)]) {
    expect(isSessionFormToken(secret, "session-a", junk)).toBe(false);
  }
});

it("classifies devices coarsely, never keeping the user agent", () => {
  expect(
    deviceClass("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile/15E148 Safari/604.1"),
  ).toBe("Phone · Safari");
  expect(deviceClass("Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/131.0 Mobile Safari/537.36")).toBe(
    "Phone · Chrome",
  );
  expect(deviceClass("Mozilla/5.0 (Linux; Android 13; SM-X200) Chrome/131.0 Safari/537.36")).toBe("Tablet · Chrome");
  expect(deviceClass("Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) Safari/604.1")).toBe("Tablet · Safari");
  expect(deviceClass("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
    "Computer · Firefox",
  );
  expect(deviceClass("Mozilla/5.0 (Windows NT 10.0) Chrome/131.0 Safari/537.36 Edg/131.0")).toBe("Computer · Edge");
  expect(deviceClass(undefined)).toBe("Unknown device");
  expect(deviceClass("curl/8.0")).toBe("Computer");
});
