import type { Kysely } from "kysely";
import type { Civic } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { enqueueMail } from "../core/mail/outbox.js";
import { publicPhoto } from "../core/visibility.js";
import { type AttributeValues, categoryAttributes } from "./attributes.js";
import { forwardMail, type ReportMailFacts } from "./emails.js";
import { reportPhotoUrl } from "./photos.js";
import { shownMediaUrl } from "./media-url.js";
import { describePlace, loadGazetteer } from "./place-words.js";

function storedAttributes(json: string): AttributeValues {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as AttributeValues) : {};
  } catch {
    return {};
  }
}

/**
 * Sends a stored report to the council department of its (current) category, as a new report is sent at
 * submission: the same mail, built from what is stored now (after any redaction; photos a moderator hid are left
 * out), with the reporter's contact details only if they agreed. Records where and when it went. Call it inside the
 * transaction of the action that forwards. Returns the department's address, or null when the category has none.
 */
export async function forwardReport(civic: Civic, tx: Kysely<DB>, reportId: number, now: Date): Promise<string | null> {
  const r = await tx
    .selectFrom("reports")
    .innerJoin("categories", "categories.code", "reports.category_code")
    .leftJoin("places", "places.id", "reports.place_id")
    .select([
      "reports.reference",
      "reports.title",
      "reports.description",
      "reports.latitude",
      "reports.longitude",
      "reports.location_text",
      "reports.attributes",
      "reports.media_url",
      "reports.share_contact",
      "reports.reporter_name",
      "reports.reporter_email",
      "reports.reporter_phone",
      "categories.name as category_name",
      "categories.attributes as category_attributes",
      "categories.department_email",
      "places.name as place_name",
    ])
    .where("reports.id", "=", reportId)
    .executeTakeFirstOrThrow();
  if (!r.department_email) return null;
  const photos = await tx
    .selectFrom("report_photos")
    .select("hash")
    .where("report_id", "=", reportId)
    .where(publicPhoto)
    .orderBy("position")
    .execute();
  const { baseUrl } = civic.config;
  const place = { placeName: r.place_name, locationText: r.location_text, lat: r.latitude, lng: r.longitude };
  const gazetteer = await loadGazetteer(tx);
  const facts: ReportMailFacts = {
    reference: r.reference,
    title: r.title,
    description: r.description,
    categoryName: r.category_name,
    where: describePlace(place, gazetteer) ?? "Not given",
    whereInOurWords: describePlace(place, gazetteer, { reporterText: false }),
    lat: r.latitude,
    lng: r.longitude,
    link: `${baseUrl}/reports/${r.reference}`,
    baseUrl,
    villageName: civic.config.village.name,
    councilName: civic.config.village.councilName,
    contactEmail: civic.config.village.contactEmail,
    domain: new URL(baseUrl).hostname,
  };
  const contact =
    r.share_contact === 1 ? { name: r.reporter_name, email: r.reporter_email, phone: r.reporter_phone } : null;
  await enqueueMail(
    tx,
    forwardMail(
      r.department_email,
      facts,
      {
        definitions: categoryAttributes({ attributes: r.category_attributes }),
        values: storedAttributes(r.attributes),
      },
      photos.map((p) => reportPhotoUrl(baseUrl, p.hash, "full")),
      shownMediaUrl(r.media_url, baseUrl),
      contact,
    ),
    now,
  );
  await tx
    .updateTable("reports")
    .set({ forwarded_at: now.toISOString(), forwarded_to: r.department_email })
    .where("id", "=", reportId)
    .execute();
  return r.department_email;
}
