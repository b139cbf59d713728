import { describe, expect, it } from "vitest";
import { MARKDOWN_MAX_CHARS, markdownToHtml, markdownToText } from "../../src/core/web/markdown.js";

describe("staff Markdown", () => {
  it("renders ordinary Markdown: emphasis, lists, links, headings shifted below the page's h1", () => {
    const html = markdownToHtml(
      "# Plan\n\nWe **will** plant:\n\n- oaks\n- ash\n\nSee [the map](https://example.org/map).",
    );
    expect(html).toContain("<h2>Plan</h2>");
    expect(html).not.toContain("<h1");
    expect(html).toContain("<strong>will</strong>");
    expect(html).toContain("<li>oaks</li>");
    expect(html).toContain('<a href="https://example.org/map" rel="nofollow ugc noopener">the map</a>');
    expect(markdownToHtml("###### Deep\n\n# Top", { headingOffset: 3 })).toMatch(/<h6>Deep<\/h6>\s*<h4>Top<\/h4>/);
    // Local links stay without rel; bare https addresses are linked.
    expect(markdownToHtml("[Volunteer](/volunteer)")).toContain('<a href="/volunteer">Volunteer</a>');
    expect(markdownToHtml("Go to https://example.org now")).toContain('href="https://example.org"');
    expect(markdownToHtml("[mail](mailto:clerk@example.org)")).toContain('href="mailto:clerk@example.org"');
  });

  it("hostile Markdown cannot inject HTML, scripts, styles, images or dangerous links", () => {
    const hostile = [
      "<script>alert(1)</script>",
      '<img src=x onerror="alert(1)">',
      "<iframe src=https://evil.example></iframe>",
      '<a href="javascript:alert(1)">raw</a>',
      "[js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [spaced]( javascript:alert(1))",
      "[entity](&#106;avascript:alert(1)) [vb](vbscript:msgbox(1)) [file](file:///etc/passwd)",
      "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
      "![pixel](https://tracker.example/p.gif) ![data](data:image/png;base64,AAAA)",
      "[proto-relative](//evil.example/x)",
      "| a | b |\n|:-|-:|\n| 1 | 2 |",
      `${">".repeat(5000)} deep quote`,
      `${"- ".repeat(3000)}deep list`,
      `${"[".repeat(20_000)}x${"]".repeat(20_000)}`,
      "\u0000 NUL and \u202e control",
    ].join("\n\n");
    const html = markdownToHtml(hostile);
    // The deep quote, list and brackets cost bounded work, shown by structure rather than by time on a shared
    // machine: the nesting stops at markdown-it's maxNesting (20), and the output grows linearly with the input.
    const deepest = (tags: string) => {
      let depth = 0;
      let max = 0;
      for (const m of html.matchAll(new RegExp(`<(/?)(?:${tags})\\b`, "g"))) {
        depth += m[1] ? -1 : 1;
        max = Math.max(max, depth);
      }
      return max;
    };
    expect(deepest("blockquote")).toBeGreaterThan(1);
    expect(deepest("blockquote")).toBeLessThanOrEqual(20);
    expect(deepest("ul|ol")).toBeLessThanOrEqual(20);
    expect(html.length).toBeLessThan(2 * hostile.length);
    expect(html).not.toMatch(/<(script|img|iframe|style|object|embed|svg)\b/i);
    expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    expect(html).not.toMatch(/href="\s*(javascript|vbscript|data|file):/i);
    expect(html).not.toContain('href="//');
    expect(html).not.toContain("style=");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("\u0000");
    // Every link in the output is http(s), mailto or local.
    for (const m of html.matchAll(/href="([^"]*)"/g)) expect(m[1]).toMatch(/^(https?:|mailto:|\/[^/]|#)/);
  });

  it("caps the input size", () => {
    const html = markdownToHtml("word ".repeat(MARKDOWN_MAX_CHARS));
    expect(html.length).toBeLessThan(MARKDOWN_MAX_CHARS + 100);
    expect(markdownToText("x".repeat(MARKDOWN_MAX_CHARS * 2))).toHaveLength(MARKDOWN_MAX_CHARS);
  });

  it("the plain-text form keeps the words and shows link addresses", () => {
    expect(markdownToText("Read [the plan](https://example.org/plan).\r\n\r\nThanks")).toBe(
      "Read the plan (https://example.org/plan).\n\nThanks",
    );
  });
});
