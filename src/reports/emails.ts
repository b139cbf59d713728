import type { OutgoingMail } from "../core/mail/outbox.js";
import type { AttributeDefinition, AttributeValues } from "./attributes.js";

/** Escapes text for HTML email bodies. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function paragraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
}

function htmlDocument(title: string, body: string): string {
  return `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

export interface ReportMailFacts {
  reference: string;
  title: string;
  description: string;
  categoryName: string;
  /** Human description of where: place name, typed address and/or coordinates. */
  where: string;
  lat: number | null;
  lng: number | null;
  link: string;
  villageName: string;
  councilName: string;
  contactEmail: string;
  domain: string;
}

/**
 * Subjects carry only our own words, the reference and the category name (set by the volunteers), never text a
 * sender typed: otherwise anyone could make the platform send a message of their choosing to any address.
 */
function subjectOf(kind: "confirmation" | "forward", r: ReportMailFacts): string {
  return kind === "confirmation" ? `Your report ${r.reference}` : `New report ${r.reference} (${r.categoryName})`;
}

/**
 * The confirmation sent to a reporter who gave an email address. Nobody has confirmed that address, so the message
 * holds only our words, the reference and the category (no title, description or place typed by the sender):
 * otherwise anyone could have the platform send their text to any address (core/mail/policy.ts).
 */
export function confirmationMail(to: string, r: ReportMailFacts, serviceNotice: string): OutgoingMail {
  const subject = subjectOf("confirmation", r);
  const text = [
    "Thank you for your report.",
    "",
    `Reference number: ${r.reference}`,
    `Category: ${r.categoryName}`,
    "",
    `See your report and its status at any time: ${r.link}`,
    "",
    serviceNotice,
    "",
    `Your email address is not published. It is used only to contact you about this report.`,
    "",
    `${r.villageName} Community Platform, an independent community project run by volunteers.`,
    `Not for emergencies. Questions: ${r.contactEmail}`,
  ].join("\n");
  const html = htmlDocument(
    subject,
    [
      "<p>Thank you for your report.</p>",
      `<p>Reference number: <strong>${escapeHtml(r.reference)}</strong></p>`,
      `<p>Category: ${escapeHtml(r.categoryName)}</p>`,
      `<p><a href="${escapeHtml(r.link)}">See your report and its status</a></p>`,
      `<p>${escapeHtml(serviceNotice)}</p>`,
      "<p>Your email address is not published. It is used only to contact you about this report.</p>",
      `<p>${escapeHtml(r.villageName)} Community Platform, an independent community project run by volunteers. Not for emergencies. Questions: ${escapeHtml(r.contactEmail)}</p>`,
    ].join("\n"),
  );
  return { kind: "report-confirmation", to, subject, text, html, domain: r.domain };
}

export interface ForwardContact {
  name: string | null;
  email: string | null;
  phone: string | null;
}

/**
 * The copy of a new report sent to the council department of its category. The reporter's contact details are
 * included only when the reporter agreed (`contact` is null otherwise).
 */
export function forwardMail(
  to: string,
  r: ReportMailFacts,
  answers: { definitions: AttributeDefinition[]; values: AttributeValues },
  photoUrls: string[],
  mediaUrl: string | null,
  contact: ForwardContact | null,
): OutgoingMail {
  const subject = subjectOf("forward", r);
  const answerLines = answers.definitions
    .filter((d) => d.variable && answers.values[d.code] !== undefined)
    .map((d) => {
      const v = answers.values[d.code] as string | string[];
      const keys = Array.isArray(v) ? v : [v];
      const names = keys.map((k) => d.values?.find((x) => x.key === k)?.name ?? k);
      return `${d.description} ${names.join(", ")}`;
    });
  const coords = r.lat !== null && r.lng !== null ? `${r.lat.toFixed(6)}, ${r.lng.toFixed(6)}` : null;
  const mapLink =
    r.lat !== null && r.lng !== null
      ? `https://www.openstreetmap.org/?mlat=${r.lat}&mlon=${r.lng}#map=18/${r.lat}/${r.lng}`
      : null;
  const contactLines = contact
    ? [
        "The reporter agreed to share their contact details with the council:",
        ...(contact.name ? [`Name: ${contact.name}`] : []),
        ...(contact.email ? [`Email: ${contact.email}`] : []),
        ...(contact.phone ? [`Phone: ${contact.phone}`] : []),
      ]
    : ["The reporter did not share contact details. Updates can be posted on the public report page."];
  const media = [...photoUrls, ...(mediaUrl ? [mediaUrl] : [])];
  const text = [
    `A resident reported this through the ${r.villageName} Community Platform, an independent volunteer-run project.`,
    "",
    `Reference: ${r.reference}`,
    `Category: ${r.categoryName}`,
    `Title: ${r.title}`,
    `Where: ${r.where}`,
    ...(coords ? [`Coordinates (WGS84 lat, lng): ${coords}`] : []),
    ...(mapLink ? [`Map: ${mapLink}`] : []),
    "",
    r.description,
    "",
    ...(answerLines.length > 0 ? [...answerLines, ""] : []),
    ...(media.length > 0 ? ["Photos:", ...media, ""] : []),
    `Public page: ${r.link}`,
    "",
    ...contactLines,
    "",
    `Questions about this platform: ${r.contactEmail}`,
  ].join("\n");
  const html = htmlDocument(
    subject,
    [
      `<p>A resident reported this through the ${escapeHtml(r.villageName)} Community Platform, an independent volunteer-run project.</p>`,
      "<ul>",
      `<li>Reference: <strong>${escapeHtml(r.reference)}</strong></li>`,
      `<li>Category: ${escapeHtml(r.categoryName)}</li>`,
      `<li>Title: ${escapeHtml(r.title)}</li>`,
      `<li>Where: ${escapeHtml(r.where)}</li>`,
      ...(coords ? [`<li>Coordinates (WGS84 lat, lng): ${escapeHtml(coords)}</li>`] : []),
      ...(mapLink ? [`<li><a href="${escapeHtml(mapLink)}">Map</a></li>`] : []),
      "</ul>",
      paragraphs(r.description),
      ...(answerLines.length > 0 ? ["<ul>", ...answerLines.map((l) => `<li>${escapeHtml(l)}</li>`), "</ul>"] : []),
      ...(media.length > 0
        ? [
            "<p>Photos:</p><ul>",
            // A client's media_url is someone else's link (reports/media-url.ts): plain, marked as user content.
            ...media.map(
              (u) => `<li><a href="${escapeHtml(u)}" rel="nofollow noopener noreferrer ugc">${escapeHtml(u)}</a></li>`,
            ),
            "</ul>",
          ]
        : []),
      `<p><a href="${escapeHtml(r.link)}">Public page of the report</a></p>`,
      `<p>${contactLines.map(escapeHtml).join("<br>")}</p>`,
      `<p>Questions about this platform: ${escapeHtml(r.contactEmail)}</p>`,
    ].join("\n"),
  );
  return { kind: "report-forward", to, subject, text, html, domain: r.domain };
}
