import { escapeXml } from "../core/http/xml.js";

/**
 * Staff-written Markdown for project pages and newsletters. No Markdown library is installed yet (the lead is asked
 * for `markdown-it` with `html: false`); until then the text is rendered safely as plain paragraphs: every character
 * is escaped, blank lines separate paragraphs, single line breaks are kept, and raw HTML never reaches the page.
 */
export function markdownToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => `<p>${p.split("\n").map(escapeXml).join("<br>")}</p>`)
    .join("\n");
}

/** The plain-text form of the same Markdown (for text mail bodies). */
export function markdownToText(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}
