import { layoutMail, type MailBlock, type MailFact, type MailSite } from "../core/mail/layout.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import type { AttributeDefinition, AttributeValues } from "./attributes.js";

export interface ReportMailFacts {
  reference: string;
  title: string;
  description: string;
  categoryName: string;
  /** Where, in words (place-words.ts): what the reporter said beside the gazetteer's nearest name. */
  where: string;
  /** Where in the gazetteer's words only, without the place text the reporter typed; null when none. */
  whereInOurWords: string | null;
  lat: number | null;
  lng: number | null;
  link: string;
  /** The site's base URL, without trailing slash. */
  baseUrl: string;
  villageName: string;
  councilName: string;
  contactEmail: string;
  domain: string;
}

/**
 * Subjects carry only our own words, the reference and the category name (set by the volunteers), never text a
 * sender typed: otherwise anyone could make the platform send a message of their choosing to any address.
 */
function subjectOf(which: "confirmation" | "forward", r: ReportMailFacts): string {
  return which === "confirmation" ? `Your report ${r.reference}` : `New report ${r.reference} (${r.categoryName})`;
}

function siteOf(r: ReportMailFacts): MailSite {
  return { villageName: r.villageName, baseUrl: r.baseUrl, contactEmail: r.contactEmail };
}

/**
 * The confirmation sent to a reporter who gave an email address. Nobody has confirmed that address, so the message
 * holds only our words, the reference, the category and the place in the gazetteer's words (no title, description
 * or place typed by the sender): otherwise anyone could have the platform send their text to any address
 * (core/mail/policy.ts).
 */
export function confirmationMail(to: string, r: ReportMailFacts, serviceNotice: string): OutgoingMail {
  return layoutMail(
    siteOf(r),
    { kind: "report-confirmation", to, subject: subjectOf("confirmation", r) },
    {
      heading: "Thank you for your report",
      body: [
        "Thank you for your report.",
        {
          facts: [
            { label: "Reference number", value: r.reference },
            { label: "Category", value: r.categoryName },
            ...(r.whereInOurWords ? [{ label: "Where", value: r.whereInOurWords }] : []),
          ],
        },
      ],
      action: {
        label: "See your report and its status",
        lead: "See your report and its status at any time:",
        url: r.link,
      },
      after: [serviceNotice, "Not for emergencies: call 999 if someone is in danger."],
      footer: {
        why:
          "You get this message because this address was given with the report. Your email address is not " +
          "published. It is used only to contact you about this report.",
      },
    },
  );
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
  const contactBlocks: MailBlock[] = contact
    ? [
        "The reporter agreed to share their contact details with the council:",
        {
          facts: [
            ...(contact.name ? [{ label: "Name", value: contact.name }] : []),
            ...(contact.email ? [{ label: "Email", value: contact.email }] : []),
            ...(contact.phone ? [{ label: "Phone", value: contact.phone }] : []),
          ],
        },
      ]
    : ["The reporter did not share contact details. Updates can be posted on the public report page."];
  const media = [...photoUrls, ...(mediaUrl ? [mediaUrl] : [])];
  const facts: MailFact[] = [
    { label: "Reference", value: r.reference },
    { label: "Category", value: r.categoryName },
    { label: "Title", value: r.title },
    { label: "Where", value: r.where },
    ...(coords ? [{ label: "Coordinates (WGS84 lat, lng)", value: coords }] : []),
    ...(mapLink ? [{ label: "Map", value: "OpenStreetMap", url: mapLink }] : []),
  ];
  return layoutMail(
    siteOf(r),
    { kind: "report-forward", to, subject: subjectOf("forward", r) },
    {
      heading: `New report ${r.reference}`,
      body: [
        `A resident reported this through the ${r.villageName} Community Platform, an independent volunteer-run project.`,
        { facts },
        { quote: r.description },
        ...(answerLines.length > 0 ? [answerLines.join("\n")] : []),
        // A client's media_url is someone else's link (reports/media-url.ts): plain, marked as user content.
        ...(media.length > 0
          ? [{ title: "Photos:", links: media.map((url) => ({ label: url, url })), ugc: true }]
          : []),
      ],
      action: { label: "Public page of the report", lead: "Public page:", url: r.link },
      after: contactBlocks,
      footer: {
        why:
          `You get this message because this address receives the platform's reports in the category ` +
          `${r.categoryName}. To change that, write to ${r.contactEmail}.`,
      },
    },
  );
}
