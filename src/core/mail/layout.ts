import type { SiteInfo } from "../site.js";
import type { OutgoingMail } from "./outbox.js";

/**
 * The one mail layout. A feature's mail builder says what a message holds (a heading, paragraphs and facts, one main
 * action, a footer saying why the person got it and how to stop) and `renderMail` makes both parts from it: a plain
 * text part with every address written out, and an accessible HTML part (the site's name and colours, inline CSS,
 * no images and nothing fetched from anywhere, readable in dark mode). The layout knows no feature.
 */

/** What the layout needs to know about the site. */
export type MailSite = Pick<SiteInfo, "villageName" | "baseUrl" | "contactEmail">;

export interface MailLink {
  /** The link's words in the HTML part (they must make sense alone, e.g. "See your report"). */
  label: string;
  /** An absolute address: it is written out in full in the text part. */
  url: string;
}

/** The one thing the message asks the reader to do. */
export interface MailAction extends MailLink {
  /**
   * The sentence that leads to the link ("Open this link and press “Sign in”:"), shown before it in both parts; in
   * the text part the address follows it on its own line. Without it the text part says "label:" instead.
   */
  lead?: string;
}

/** A labelled value ("Reference: ABCD-1234"); with `url`, the value is that link. */
export interface MailFact {
  label: string;
  value: string;
  url?: string;
}

/** Already-rendered HTML that the caller vouches for (sanitised Markdown), with its plain-text form. */
export interface TrustedBody {
  html: string;
  text: string;
}

/** One block of a message's body, in reading order. */
export type MailBlock =
  /** A paragraph in our own words; a newline is a line break. */
  | string
  /** Text someone typed (a reason, a note, a resident's message): set apart, kept as typed, never made a link. */
  | { quote: string }
  | { facts: MailFact[] }
  /**
   * Secondary links under a title, e.g. photos. With `ugc`, they are someone else's links (rel="nofollow noopener
   * noreferrer ugc"), shown as their addresses.
   */
  | { title: string; links: MailLink[]; ugc?: boolean }
  | { trusted: TrustedBody };

export interface MailFooter {
  /** Why the person got this message. */
  why: string;
  /** How to stop such messages: a link (one-click unsubscribe page) or a sentence. */
  stop?: MailLink | string;
}

export interface MailContent {
  /** The message's heading, also the HTML part's title. */
  heading: string;
  /** What comes before the action. */
  body: MailBlock[];
  action?: MailAction;
  /** What comes after the action. */
  after?: MailBlock[];
  footer: MailFooter;
}

export interface RenderedMail {
  text: string;
  html: string;
}

/**
 * The site's colours, the custom properties of src/core/web/styles/site.css (a test holds them equal), and the
 * colours of dark mode, which the site's stylesheet does not have. Each pair meets WCAG 2.1 AA.
 */
export const MAIL_COLOURS = {
  ink: "#1b1f23",
  muted: "#4a5560",
  paper: "#ffffff",
  wash: "#f3f5f2",
  line: "#c9d0c6",
  brand: "#1d5b3a",
  link: "#1a4f8b",
} as const;

const DARK = {
  page: "#101315",
  card: "#1b1f23",
  ink: "#f3f5f2",
  muted: "#c9d0c6",
  line: "#4a5560",
  link: "#9cc3f5",
} as const;

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function siteName(site: MailSite): string {
  return `${site.villageName} Community Platform`;
}

function home(site: MailSite): string {
  return `${site.baseUrl}/`;
}

// ---------- The text part ----------

function blockText(block: MailBlock): string {
  if (typeof block === "string") return block;
  if ("quote" in block) return block.quote.trim();
  if ("facts" in block) return block.facts.map((f) => `${f.label}: ${f.url ?? f.value}`).join("\n");
  if ("links" in block) return [block.title, ...block.links.map((l) => l.url)].join("\n");
  return block.trusted.text.trim();
}

function textPart(content: MailContent, site: MailSite): string {
  const blocks = [
    content.heading,
    ...content.body.map(blockText),
    ...(content.action ? [`${content.action.lead ?? `${content.action.label}:`}\n${content.action.url}`] : []),
    ...(content.after ?? []).map(blockText),
  ];
  const { stop } = content.footer;
  const footer = [
    "-- ",
    siteName(site),
    home(site),
    content.footer.why,
    ...(stop === undefined ? [] : [typeof stop === "string" ? stop : `${stop.label}: ${stop.url}`]),
    `Run by volunteers. Questions: ${site.contactEmail}`,
  ];
  return `${blocks.filter((b) => b !== "").join("\n\n")}\n\n${footer.join("\n")}\n`;
}

// ---------- The HTML part ----------

const FONT = `system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif`;
const C = MAIL_COLOURS;
const P = `margin:0 0 16px;color:${C.ink}`;
const LINK = `color:${C.link};text-decoration:underline`;

function lines(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, "<br>");
}

function link(l: MailLink, ugc = false): string {
  // Someone else's link is marked as user content, and its address is its text.
  if (ugc) return `<a href="${escapeHtml(l.url)}" rel="nofollow noopener noreferrer ugc">${escapeHtml(l.url)}</a>`;
  return `<a href="${escapeHtml(l.url)}" style="${LINK}">${escapeHtml(l.label)}</a>`;
}

function blockHtml(block: MailBlock): string {
  if (typeof block === "string") return `<p style="${P}">${lines(block)}</p>`;
  if ("quote" in block) {
    return (
      `<blockquote class="mail-quote" style="margin:0 0 16px;padding:8px 16px;border-left:4px solid ${C.line};` +
      `color:${C.ink}">${lines(block.quote.trim())}</blockquote>`
    );
  }
  if ("facts" in block) {
    const rows = block.facts.map(
      (f) =>
        `<tr><th scope="row" style="text-align:left;vertical-align:top;padding:4px 16px 4px 0;color:${C.ink}">` +
        `${escapeHtml(f.label)}</th><td style="vertical-align:top;padding:4px 0;color:${C.ink}">` +
        `${f.url ? link({ label: f.value, url: f.url }) : lines(f.value)}</td></tr>`,
    );
    return `<table style="border-collapse:collapse;margin:0 0 16px"><tbody>${rows.join("")}</tbody></table>`;
  }
  if ("links" in block) {
    const items = block.links.map((l) => `<li style="margin:0 0 4px;word-break:break-all">${link(l, block.ugc)}</li>`);
    return (
      `<p style="margin:0 0 4px;color:${C.ink}">${lines(block.title)}</p>` +
      `<ul style="margin:0 0 16px;padding-left:24px;color:${C.ink}">${items.join("")}</ul>`
    );
  }
  return `<div class="mail-trusted" style="margin:0 0 16px;color:${C.ink}">${block.trusted.html}</div>`;
}

function actionHtml(action: MailAction): string {
  return (
    (action.lead ? `<p style="${P}">${lines(action.lead)}</p>` : "") +
    `<p style="margin:0 0 24px"><a class="mail-action" href="${escapeHtml(action.url)}" style="display:inline-block;` +
    `padding:12px 20px;border-radius:6px;background:${C.brand};color:#ffffff;font-weight:bold;` +
    `text-decoration:none">${escapeHtml(action.label)}</a></p>`
  );
}

/** Dark mode: the only CSS not inline, since a media query cannot be. */
const DARK_CSS =
  `@media (prefers-color-scheme: dark) {` +
  ` .mail-page { background: ${DARK.page} !important; }` +
  ` .mail-card { background: ${DARK.card} !important; border-color: ${DARK.line} !important; }` +
  ` .mail-card h1, .mail-card p, .mail-card th, .mail-card td, .mail-card li, .mail-card ul,` +
  ` .mail-card blockquote, .mail-trusted * { color: ${DARK.ink} !important; }` +
  ` .mail-card a { color: ${DARK.link} !important; }` +
  ` .mail-card a.mail-action, .mail-card .mail-brand a { color: #ffffff !important; }` +
  ` .mail-card .mail-quote { border-color: ${DARK.line} !important; }` +
  ` .mail-card .mail-footer, .mail-card .mail-footer p { color: ${DARK.muted} !important;` +
  ` border-color: ${DARK.line} !important; }` +
  ` }`;

function htmlPart(content: MailContent, site: MailSite): string {
  const { stop } = content.footer;
  const footer = [
    lines(content.footer.why),
    ...(stop === undefined ? [] : [typeof stop === "string" ? lines(stop) : link(stop)]),
  ];
  const muted = `margin:0 0 8px;color:${C.muted}`;
  return [
    `<!doctype html>`,
    `<html lang="en-GB">`,
    `<head>`,
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="color-scheme" content="light dark">`,
    `<title>${escapeHtml(content.heading)}</title>`,
    `<style>${DARK_CSS}</style>`,
    `</head>`,
    `<body style="margin:0;padding:0;font-family:${FONT};font-size:16px;line-height:1.5;color:${C.ink};` +
      `background:${C.wash}">`,
    `<div class="mail-page" style="padding:16px 8px;background:${C.wash}">`,
    `<div class="mail-card" style="max-width:600px;margin:0 auto;background:${C.paper};border:1px solid ${C.line};` +
      `border-radius:6px;overflow:hidden">`,
    `<header class="mail-brand" style="padding:12px 20px;background:${C.brand};font-size:18px;font-weight:bold">` +
      `<a href="${escapeHtml(home(site))}" style="color:#ffffff;text-decoration:none">${escapeHtml(siteName(site))}</a>` +
      `</header>`,
    `<main style="padding:20px">`,
    `<h1 style="margin:0 0 16px;font-size:24px;line-height:1.25;color:${C.ink}">${escapeHtml(content.heading)}</h1>`,
    ...content.body.map(blockHtml),
    ...(content.action ? [actionHtml(content.action)] : []),
    ...(content.after ?? []).map(blockHtml),
    `</main>`,
    `<footer class="mail-footer" style="padding:16px 20px;border-top:1px solid ${C.line};font-size:14px;` +
      `color:${C.muted}">`,
    ...footer.map((f) => `<p style="${muted}">${f}</p>`),
    `<p style="${muted}">${link({ label: siteName(site), url: home(site) })}. Run by volunteers. Questions: ` +
      `${escapeHtml(site.contactEmail)}</p>`,
    `</footer>`,
    `</div>`,
    `</div>`,
    `</body>`,
    `</html>`,
    ``,
  ].join("\n");
}

/**
 * Local links in trusted HTML (`href="/volunteer"`) and in its text ("(/volunteer)") made absolute on the site: a
 * message has no page to be relative to.
 */
function absoluteLinks(body: TrustedBody, site: MailSite): TrustedBody {
  return {
    html: body.html.replace(/href="\/(?![/\\])/g, `href="${escapeHtml(site.baseUrl)}/`),
    text: body.text.replace(/\(\/(?![/\\])([^)\s]*)\)/g, (_m, path: string) => `(${site.baseUrl}/${path})`),
  };
}

/** Makes the text and HTML parts of a message. */
export function renderMail(content: MailContent, site: MailSite): RenderedMail {
  const withAbsoluteLinks = (blocks: MailBlock[]) =>
    blocks.map((b) => (typeof b !== "string" && "trusted" in b ? { trusted: absoluteLinks(b.trusted, site) } : b));
  const c = { ...content, body: withAbsoluteLinks(content.body), after: withAbsoluteLinks(content.after ?? []) };
  return { text: textPart(c, site), html: htmlPart(c, site) };
}

/**
 * A message ready for the outbox: its envelope (kind, recipient, subject, headers; never anything a person typed in
 * the subject) and both parts made from `content`. Its Message-ID is on the site's host name.
 */
export function layoutMail(
  site: MailSite,
  envelope: Omit<OutgoingMail, "text" | "html" | "domain">,
  content: MailContent,
): OutgoingMail {
  return { ...envelope, ...renderMail(content, site), domain: new URL(site.baseUrl).hostname };
}
