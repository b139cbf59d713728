import type { AtomFeed } from "../core/http/feed.js";
import type { PublicReport, PublicUpdate } from "./repository.js";

export interface FeedOptions {
  title: string;
  /** This feed's own URL. */
  selfUrl: string;
  /** The HTML page the feed mirrors. */
  pageUrl: string;
  baseUrl: string;
  /** The newest public update of each report, by reference. */
  updates?: Map<string, PublicUpdate>;
  /** How many people said they have seen each report too, by reference (never who). */
  seen?: Map<string, number>;
}

/** How a feed entry introduces a report's newest update: a resident's and the reporter's are marked as theirs. */
function updateLine(u: PublicUpdate): string {
  const day = u.at.slice(0, 10);
  if (u.event === "update" && u.by === "resident") return `Update from a resident ${day}`;
  if (u.event === "update" && u.by === "reporter") return `Update from the reporter ${day}`;
  if (u.by === "council") return `Update from the council ${day} (${u.statusLabel})`;
  return `Update ${day} (${u.statusLabel})`;
}

/**
 * An Atom (RFC 4287) feed of public reports (sent with sendAtomFeed): title, status, category, place in
 * words and description, never the reporter.
 */
export function reportsFeed(reports: PublicReport[], o: FeedOptions): AtomFeed {
  return {
    title: o.title,
    selfUrl: o.selfUrl,
    pageUrl: o.pageUrl,
    author: o.title.split(":")[0] ?? o.title,
    georss: true,
    entries: reports.map((r) => {
      const link = `${o.baseUrl}/reports/${r.reference}`;
      const update = o.updates?.get(r.reference);
      const seen = o.seen?.get(r.reference) ?? 0;
      const seenToo = seen > 0 ? ` · seen too by ${seen} ${seen === 1 ? "person" : "people"}` : "";
      const latest = update?.note ? `\n\n${updateLine(update)}: ${update.note}` : "";
      return {
        id: link,
        title: r.title,
        url: link,
        published: r.createdAt,
        updated: r.updatedAt,
        category: { term: r.categoryCode, label: r.categoryName },
        summary: `${r.statusLabel} · ${r.categoryName}${r.placeInWords ? ` · ${r.placeInWords}` : ""}${seenToo}\n\n${r.description}${latest}`,
        point: r.lat !== null && r.lng !== null ? { lat: r.lat, lng: r.lng } : null,
      };
    }),
  };
}
