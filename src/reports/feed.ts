import { escapeXml } from "../core/http/xml.js";
import type { PublicReport, PublicUpdate } from "./repository.js";

export interface FeedOptions {
  title: string;
  /** This feed's own URL. */
  selfUrl: string;
  /** The HTML page the feed mirrors. */
  pageUrl: string;
  baseUrl: string;
  /** When nothing is in the feed. */
  fallbackUpdated: string;
  /** The newest public update of each report, by reference. */
  updates?: Map<string, PublicUpdate>;
}

/** An Atom (RFC 4287) feed of public reports: title, status, category, place and description, never the reporter. */
export function reportsAtom(reports: PublicReport[], o: FeedOptions): string {
  const updated = reports.reduce((max, r) => (r.updatedAt > max ? r.updatedAt : max), "") || o.fallbackUpdated;
  const entries = reports.map((r) => {
    const link = `${o.baseUrl}/reports/${r.reference}`;
    const where = [r.placeName, r.locationText].filter(Boolean).join(": ");
    const update = o.updates?.get(r.reference);
    const latest = update?.note ? `\n\nUpdate ${update.at.slice(0, 10)} (${update.statusLabel}): ${update.note}` : "";
    const summary = `${r.statusLabel} · ${r.categoryName}${where ? ` · ${where}` : ""}\n\n${r.description}${latest}`;
    const point = r.lat !== null && r.lng !== null ? `<georss:point>${r.lat} ${r.lng}</georss:point>` : "";
    return [
      "<entry>",
      `<id>${escapeXml(link)}</id>`,
      `<title>${escapeXml(r.title)}</title>`,
      `<link rel="alternate" type="text/html" href="${escapeXml(link)}"/>`,
      `<published>${r.createdAt}</published>`,
      `<updated>${r.updatedAt}</updated>`,
      `<category term="${escapeXml(r.categoryCode)}" label="${escapeXml(r.categoryName)}"/>`,
      `<summary type="text">${escapeXml(summary)}</summary>`,
      point,
      "</entry>",
    ].join("");
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:georss="http://www.georss.org/georss">',
    `<id>${escapeXml(o.selfUrl)}</id>`,
    `<title>${escapeXml(o.title)}</title>`,
    `<updated>${updated}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${escapeXml(o.selfUrl)}"/>`,
    `<link rel="alternate" type="text/html" href="${escapeXml(o.pageUrl)}"/>`,
    `<author><name>${escapeXml(o.title.split(":")[0] ?? o.title)}</name></author>`,
    ...entries,
    "</feed>",
  ].join("\n");
}
