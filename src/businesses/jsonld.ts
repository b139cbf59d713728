import type { BusinessRecord } from "./model.js";

/** The JSON-LD context every entity carries: schema.org's. */
export const SCHEMA_ORG_CONTEXT = "https://schema.org";

/** The stable absolute @id of a business: its API address under BASE_URL. */
export function businessIri(baseUrl: string, id: string): string {
  return `${trimSlash(baseUrl)}/api/v1/businesses/${encodeURIComponent(id)}`;
}

/** The human page of a business. */
export function businessPageUrl(baseUrl: string, id: string): string {
  return `${trimSlash(baseUrl)}/businesses/${encodeURIComponent(id)}`;
}

export function trimSlash(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** A business as schema.org JSON-LD; the key order is fixed, so the bytes are canonical. Empty fields are left out. */
export function businessJsonLd(b: BusinessRecord, baseUrl: string): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    "@context": SCHEMA_ORG_CONTEXT,
    "@type": b.schemaType,
    "@id": businessIri(baseUrl, b.id),
    identifier: b.id,
    name: b.name,
    category: b.category,
  };
  if (b.description) doc.description = b.description;
  const address = Object.entries(b.address).filter(([, v]) => v !== null && v !== "");
  if (address.length > 0) doc.address = { "@type": "PostalAddress", ...Object.fromEntries(address) };
  if (b.geo) doc.geo = { "@type": "GeoCoordinates", latitude: b.geo.latitude, longitude: b.geo.longitude };
  if (b.telephone) doc.telephone = b.telephone;
  if (b.email) doc.email = b.email;
  if (b.url) doc.url = b.url;
  if (b.image) doc.image = b.image;
  if (b.sameAs.length > 0) doc.sameAs = b.sameAs;
  if (b.openingHours.length > 0) {
    doc.openingHoursSpecification = b.openingHours.map((h) => ({
      "@type": "OpeningHoursSpecification",
      dayOfWeek: h.dayOfWeek,
      opens: h.opens,
      closes: h.closes,
    }));
  }
  doc.mainEntityOfPage = businessPageUrl(baseUrl, b.id);
  doc.dateCreated = b.createdAt;
  doc.dateModified = b.updatedAt;
  return doc;
}

/** JSON for a `<script type="application/ld+json">` block: `<` is escaped so the text can never close the script. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
