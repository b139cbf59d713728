import { describe, expect, it } from "vitest";
import { checkMediaUrl, mediaUrlPattern } from "./media-url.js";

const OWN = "civic.test";
const accepted = [
  "https://images.example.org/lamp.jpg",
  "http://a.bc",
  "https://a.bc:8080/x?y=1#z",
  "https://img.civic.test/x.jpg",
  "https://a.bc./x",
  "https://-a.bc/",
];
const refused = [
  "https://civic.test/x",
  "https://civic.test./x",
  "http://x.localhost/",
  "http://printer.local/",
  "http://a.home.arpa/",
  "http://svc.internal/",
  "http://127.0.0.1/",
  "http://0x7f.1/",
  "http://2130706433/",
  "http://intranet/",
  "http://[::1]/",
  "https://u:p@a.bc/",
  "https://a.bc@b.cd/",
  "ftp://a.bc/",
  "https://a.bc/\u202egpj.exe",
  "https://a.bc/\u200b",
  "https://a.bc:99999/",
];

describe("media_url", () => {
  it("accepts plain links to public hosts elsewhere and refuses the rest", () => {
    for (const url of accepted) expect(checkMediaUrl(url, OWN), url).toHaveProperty("url");
    for (const url of refused) expect(checkMediaUrl(url, OWN), url).toHaveProperty("problem");
    expect(checkMediaUrl("HTTPS://Bücher.Example/a b", OWN)).toHaveProperty("problem");
    expect(checkMediaUrl("HTTPS://Bücher.Example/ä", OWN)).toEqual({ url: "https://xn--bcher-kva.example/%C3%A4" });
  });

  it("publishes a pattern that is never looser than the check", () => {
    const pattern = new RegExp(mediaUrlPattern(OWN), "u");
    for (const url of [...accepted, ...refused]) {
      if (pattern.test(url)) expect(checkMediaUrl(url, OWN), url).toHaveProperty("url");
    }
    for (const url of refused) expect(pattern.test(url), url).toBe(false);
    expect(pattern.test("https://images.example.org/lamp.jpg")).toBe(true);
  });
});
