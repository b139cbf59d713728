import { describe, expect, it } from "vitest";
import { deviceClassOf } from "./device.js";
import { referringSite, registrableDomain } from "./referrer.js";

describe("registrableDomain", () => {
  it.each([
    ["example.org", "example.org"],
    ["www.example.org", "example.org"],
    ["a.b.c.example.com", "example.com"],
    ["news.bbc.co.uk", "bbc.co.uk"],
    ["www.gov.uk", "www.gov.uk"],
    ["parish.org.uk", "parish.org.uk"],
    ["abc.net.au", "abc.net.au"],
    ["t.co", "t.co"],
    ["WWW.Example.ORG.", "example.org"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["someone.github.io", "github.io"],
  ])("%s -> %s", (host, domain) => {
    expect(registrableDomain(host)).toBe(domain);
  });

  it.each(["localhost", "192.168.1.20", "[::1]", "co.uk", "", "a..b", "-bad-.com", `${"a".repeat(64)}.com`])(
    "refuses %j",
    (host) => {
      expect(registrableDomain(host)).toBeNull();
    },
  );
});

describe("referringSite", () => {
  const own = ["civic.test"];
  it("keeps the registrable domain of another site, never the URL", () => {
    expect(referringSite("https://m.facebook.com/story.php?id=123&from=someone", own)).toBe("facebook.com");
    expect(referringSite("http://news.bbc.co.uk/", own)).toBe("bbc.co.uk");
  });
  it("ignores our own site, app links, broken and hostile values", () => {
    expect(referringSite("http://civic.test/reports?x=1", own)).toBeNull();
    expect(referringSite("android-app://com.google.android.gm/", own)).toBeNull();
    expect(referringSite("not a url", own)).toBeNull();
    expect(referringSite("https://203.0.113.9/page", own)).toBeNull();
    expect(referringSite(`https://example.org/${"x".repeat(5000)}`, own)).toBeNull();
    expect(referringSite("https://exa\u0000mple.org/", own)).toBeNull();
    expect(referringSite(undefined, own)).toBeNull();
  });
});

describe("deviceClassOf", () => {
  it.each([
    ["Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "desktop"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1",
      "mobile",
    ],
    ["Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15", "tablet"],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36", "mobile"],
    ["Mozilla/5.0 (Linux; Android 14; SM-X200) AppleWebKit/537.36 Chrome/120 Safari/537.36", "tablet"],
    ["something unknown", "desktop"],
    ["", "desktop"],
  ])("%s -> %s", (ua, kind) => {
    expect(deviceClassOf(ua)).toBe(kind);
  });
});
