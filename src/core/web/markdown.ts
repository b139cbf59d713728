import MarkdownIt from "markdown-it";

/**
 * Staff-written Markdown (project bodies, project updates, newsletter issues), rendered with markdown-it:
 *
 * - `html: false`: raw HTML in the text is shown as text, never passed through.
 * - Links: only `http:`, `https:` and `mailto:` URLs and local paths (`/volunteer`, `#roles`) become links; anything
 *   else (`javascript:`, `data:`, `vbscript:`, `file:`, protocol-relative `//host`) stays plain text. Every link
 *   that leaves the site gets `rel="nofollow ugc noopener"`. Bare `https://…` addresses are linked (linkify, without
 *   fuzzy matching of addresses that have no scheme).
 * - No images: `![alt](src)` is not rendered as an image (photos go through the photo pipeline, which strips their
 *   metadata; a remote image would leak readers' addresses to its host and break the `img-src 'self'` policy).
 * - Headings are shifted down (`#` becomes `<h2>` by default), so a body never outranks the page's `<h1>`.
 * - Tables lose markdown-it's inline `style` alignment, which the strict CSP (`style-src 'self'`) would block.
 * - Input is capped at MARKDOWN_MAX_CHARS characters and nesting at 20 levels, so hostile text cannot make
 *   rendering slow or the output huge.
 */
export const MARKDOWN_MAX_CHARS = 60_000;

const LOCAL = /^(\/(?![/\\])|#)/;
const SAFE_SCHEME = /^(https?:|mailto:)/i;

function createRenderer() {
  const md = new MarkdownIt("default", {
    html: false,
    linkify: true,
    typographer: false,
    maxNesting: 20,
  });
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.disable("image");
  md.validateLink = (url: string) => {
    const u = url.trim();
    return LOCAL.test(u) || SAFE_SCHEME.test(u);
  };
  md.core.ruler.push("civic_attributes", (state) => {
    const offset = (state.env as { headingOffset?: number }).headingOffset ?? 1;
    const walk = (tokens: typeof state.tokens) => {
      for (const t of tokens) {
        if (t.type === "heading_open" || t.type === "heading_close") {
          const level = Math.min(6, Number(t.tag.slice(1)) + offset);
          t.tag = `h${level}`;
        }
        if (t.attrGet("style") !== null) t.attrs = (t.attrs ?? []).filter(([name]) => name !== "style");
        if (t.type === "link_open" && !LOCAL.test(String(t.attrGet("href") ?? "")))
          t.attrSet("rel", "nofollow ugc noopener");
        if (t.children) walk(t.children);
      }
    };
    walk(state.tokens);
  });
  return md;
}

const md = createRenderer();

function capped(text: string): string {
  const t = text.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
  return t.length > MARKDOWN_MAX_CHARS ? t.slice(0, MARKDOWN_MAX_CHARS) : t;
}

/**
 * Renders Markdown as safe HTML. `headingOffset` is how many levels headings move down: 1 under a page's `<h1>`,
 * more when the text sits under a lower heading (an update under its `<h3>` title uses 3).
 */
export function markdownToHtml(text: string, options: { headingOffset?: number } = {}): string {
  return md.render(capped(text), { headingOffset: options.headingOffset ?? 1 });
}

/**
 * The plain-text form of the same Markdown, for the text part of mail. Markdown is readable as it is; links become
 * "text (url)" so the address is visible, and the same size cap applies.
 */
export function markdownToText(text: string): string {
  return capped(text)
    .replace(/!?\[([^\]\n]{0,500})\]\(([^)\s]{1,2000})\)/g, (_m, label: string, url: string) =>
      label && label !== url ? `${label} (${url})` : url,
    )
    .trim();
}
