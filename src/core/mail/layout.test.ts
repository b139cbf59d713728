import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { escapeHtml, MAIL_COLOURS, type MailContent, renderMail } from "./layout.js";

const site = {
  villageName: "Ashcombe <St> Mary",
  baseUrl: "https://civic.example.org",
  contactEmail: "hello@example.org",
};

const content: MailContent = {
  heading: "Your report <ABCD-1234>",
  body: [
    "Thank you & well done.\nA second line.",
    {
      facts: [
        { label: "Reference", value: "ABCD-1234" },
        { label: "Map", value: "Map", url: "https://www.openstreetmap.org/?mlat=1&mlon=2" },
      ],
    },
    { quote: 'Someone typed <script>alert("x")</script>' },
  ],
  action: { lead: "See it at any time:", label: "See your report", url: "https://civic.example.org/reports/ABCD-1234" },
  after: [{ title: "Photos:", links: [{ label: "photo", url: "https://elsewhere.example/p.jpg?a=1&b=2" }], ugc: true }],
  footer: {
    why: "You gave this address with your report.",
    stop: { label: "Stop", url: "https://civic.example.org/u/x" },
  },
};

describe("the mail layout", () => {
  it("uses the site's colours, as site.css declares them", () => {
    const css = readFileSync(join(import.meta.dirname, "../web/styles/site.css"), "utf8");
    for (const [name, value] of Object.entries(MAIL_COLOURS)) {
      expect(new RegExp(`--${name}:\\s*([^;]+);`).exec(css)?.[1]?.trim(), name).toBe(value);
    }
  });

  it("writes the text part plainly, with every address in full", () => {
    const { text } = renderMail(content, site);
    expect(text).toBe(
      [
        "Your report <ABCD-1234>",
        "",
        "Thank you & well done.\nA second line.",
        "",
        "Reference: ABCD-1234\nMap: https://www.openstreetmap.org/?mlat=1&mlon=2",
        "",
        'Someone typed <script>alert("x")</script>',
        "",
        "See it at any time:\nhttps://civic.example.org/reports/ABCD-1234",
        "",
        "Photos:\nhttps://elsewhere.example/p.jpg?a=1&b=2",
        "",
        "-- ",
        "Ashcombe <St> Mary Community Platform",
        "https://civic.example.org/",
        "You gave this address with your report.",
        "Stop: https://civic.example.org/u/x",
        "Run by volunteers. Questions: hello@example.org",
        "",
      ].join("\n"),
    );
    // Without a lead, the action's label introduces its address.
    expect(renderMail({ ...content, action: { label: "Sign in", url: "https://x.example/s" } }, site).text).toContain(
      "Sign in:\nhttps://x.example/s",
    );
  });

  it("makes a whole, escaped HTML document that fetches nothing", () => {
    const { html } = renderMail(content, site);
    expect(html).toMatch(/^<!doctype html>\n<html lang="en-GB">\n<head>\n<meta charset="utf-8">/);
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).toContain("<title>Your report &lt;ABCD-1234&gt;</title>");
    expect(html).toContain(">Your report &lt;ABCD-1234&gt;</h1>");
    expect(html).toContain("Thank you &amp; well done.<br>A second line.");
    expect(html).toContain("Someone typed &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toContain("<script");
    expect(html).toContain("Ashcombe &lt;St&gt; Mary Community Platform");
    expect(html).toContain('<a class="mail-action" href="https://civic.example.org/reports/ABCD-1234"');
    expect(html).toContain(">See your report</a>");
    expect(html).toContain('href="https://www.openstreetmap.org/?mlat=1&amp;mlon=2"');
    expect(html).toContain(
      '<a href="https://elsewhere.example/p.jpg?a=1&amp;b=2" rel="nofollow noopener noreferrer ugc">https://elsewhere.example/p.jpg?a=1&amp;b=2</a>',
    );
    expect(html).toMatch(/<footer[^>]*>[\s\S]*You gave this address[\s\S]*>Stop<\/a>/);
    expect(html).not.toMatch(/<(img|link|script)\b|\ssrc=|url\(/);
    // Inline styles, and one media query for dark mode.
    expect(html).toContain(`background:${MAIL_COLOURS.brand}`);
    expect(html).toContain("@media (prefers-color-scheme: dark)");
    expect(html.match(/<style>/g)).toHaveLength(1);
  });

  it("fits trusted, already-rendered HTML in, with its local links made absolute", () => {
    const { html, text } = renderMail(
      {
        heading: "News",
        body: [
          {
            trusted: {
              html: '<p><a href="/volunteer">volunteer</a> <a href="https://x.example/" rel="nofollow ugc noopener">x</a></p>',
              text: "[volunteer](/volunteer) and volunteer (/volunteer), x (https://x.example/)",
            },
          },
        ],
        footer: { why: "You subscribed.", stop: "Reply STOP." },
      },
      site,
    );
    expect(html).toContain('<a href="https://civic.example.org/volunteer">volunteer</a>');
    expect(html).toContain('<a href="https://x.example/" rel="nofollow ugc noopener">x</a>');
    expect(text).toContain("volunteer (https://civic.example.org/volunteer), x (https://x.example/)");
    expect(text).toContain("You subscribed.\nReply STOP.\n");
  });

  it("escapes the five characters that matter", () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;",
    );
  });
});
