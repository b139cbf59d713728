import type { Civic } from "../core/context.js";
import type { Category } from "../core/db/schema.js";
import { normaliseEmail } from "../core/email-address.js";
import { AppError, type FieldProblem } from "../core/http/errors.js";
import type { FormUse } from "../core/http/single-use.js";
import type { OutgoingMail } from "../core/mail/outbox.js";
import { admitConfirmation } from "../core/mail/policy.js";
import {
  ImageError,
  type PhotoInput,
  type ProcessedImage,
  photoKey,
  photoSize,
  photoSource,
  processPhoto,
} from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import {
  type AttributeDefinition,
  type AttributeValues,
  categoryAttributes,
  validateAttributes,
} from "./attributes.js";
import { confirmationMail, type ReportMailFacts } from "./emails.js";
import { forwardReport } from "./forward.js";
import { describePlace, loadGazetteer } from "./place-words.js";
import { isUniqueViolation, newReference } from "./reference.js";
import { contributorBanCandidates } from "../moderation/index.js";
import { accountAddress } from "../accounts/index.js";
import { storeReport } from "./store.js";
import { textLength } from "./field-patterns.js";
import { checkMediaUrl, MEDIA_URL_MAX } from "./media-url.js";
import { alertNewReport } from "./alerts.js";

/** Limits of a report's fields (shown in the form and the API documentation), in code points as JSON Schema counts. */
export const REPORT_LIMITS = {
  title: 120,
  description: 4000,
  locationText: 300,
  email: 254,
  name: 100,
  phone: 40,
  mediaUrl: MEDIA_URL_MAX,
} as const;

/** What a new report consists of, whichever way it arrives (web form or Open311). */
export interface ReportSubmission {
  categoryCode: string;
  /** The category of `categoryCode`, when the caller has read it already (Open311 does, for its 404): not read again. */
  category?: Category;
  /** null → derived from the description (Open311 has no title). An empty string is a missing title. */
  title: string | null;
  description: string;
  lat: number | null;
  lng: number | null;
  /** Typed address / description of the place (Open311 address_string). */
  locationText: string | null;
  /** Gazetteer place (web). */
  placeId: string | null;
  /** Open311 address_id. */
  addressId: string | null;
  attributes: AttributeValues;
  photos: PhotoInput[];
  /** Open311 media_url supplied by an API client. */
  mediaUrl: string | null;
  reporter: { email: string | null; name: string | null; phone: string | null; shareContact: boolean };
  deviceId: string | null;
  accountId: string | null;
  source: "web" | "open311";
  apiKeyId: number | null;
}

export interface SubmittedReport {
  id: number;
  reference: string;
  /** True when this was a replay of a form already accepted: nothing new was created. */
  replayed?: boolean;
  /** Open311 service_notice: what happens next. */
  serviceNotice: string;
}

/** Said after every submission, in the confirmation page, email and the Open311 answer. */
export function serviceNotice(councilName: string): string {
  return `Thank you. Volunteers usually review new reports within 5 working days. Reports may be forwarded to ${councilName}; response times depend on the council.`;
}

const HTML_TAG = /<\s*\/?\s*[a-zA-Z!?][^>]*>/;
const PHONE = /^\+?[0-9 ()-]{6,}$/;
// Control characters other than tab and newlines never belong in a report.
// eslint-disable-next-line no-control-regex -- that is the point of the check.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function clean(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.replace(/\r\n?/g, "\n").trim();
  return trimmed === "" ? null : trimmed;
}

/** A title from the first sentence or line of the description, cut at a word boundary. */
export function titleFromDescription(description: string, max = 80): string {
  const first = (description.split(/\n|(?<=[.!?])\s/)[0] ?? description).trim();
  if (first.length <= max) return first.replace(/[.!?]+$/, "") || first;
  const cut = first.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

interface Checked {
  category: Category;
  title: string;
  description: string;
  lat: number | null;
  lng: number | null;
  locationText: string | null;
  placeId: string | null;
  placeName: string | null;
  addressId: string | null;
  attributes: AttributeValues;
  /** The category's attribute definitions (parsed once for the check and the council's mail). */
  definitions: AttributeDefinition[];
  email: string | null;
  name: string | null;
  phone: string | null;
  mediaUrl: string | null;
  photos: ProcessedImage[];
}

async function check(civic: Civic, input: ReportSubmission): Promise<Checked> {
  const db = civic.database.db;
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });

  const category = !input.categoryCode
    ? undefined
    : input.category?.code === input.categoryCode && input.category.is_public === 1
      ? input.category
      : await db
          .selectFrom("categories")
          .selectAll()
          .where("code", "=", input.categoryCode)
          .where("is_public", "=", 1)
          .executeTakeFirst();
  if (!category) problem("category", input.categoryCode ? "is not a category we know" : "Choose a category");
  else if (category.retired_at) problem("category", "is no longer in use: choose another category");

  const description = clean(input.description) ?? "";
  if (!description) problem("description", "Describe the problem");
  else if (textLength(description) > REPORT_LIMITS.description)
    problem("description", `must be at most ${REPORT_LIMITS.description} characters`);
  else if (HTML_TAG.test(description) || CONTROL.test(description))
    problem("description", "must be plain text, without HTML tags");

  let title: string;
  if (input.title === null) {
    title = description ? titleFromDescription(description) : "";
  } else {
    title = clean(input.title) ?? "";
    if (!title) problem("title", "Give the report a short title");
    else if (textLength(title) > REPORT_LIMITS.title)
      problem("title", `must be at most ${REPORT_LIMITS.title} characters`);
    else if (HTML_TAG.test(title) || /[\n\r]/.test(title) || CONTROL.test(title))
      problem("title", "must be one line of plain text");
  }

  // Location: a point inside the village, or a gazetteer place, or a description of the place.
  let lat = input.lat;
  let lng = input.lng;
  let placeName: string | null = null;
  const locationText = clean(input.locationText);
  if (locationText && textLength(locationText) > REPORT_LIMITS.locationText)
    problem("location", `The description of the place must be at most ${REPORT_LIMITS.locationText} characters`);
  else if (locationText && (HTML_TAG.test(locationText) || CONTROL.test(locationText)))
    problem("location", "The description of the place must be plain text");
  const placeId = clean(input.placeId);
  if (placeId) {
    const place = await db
      .selectFrom("places")
      .select(["id", "name", "latitude", "longitude"])
      .where("id", "=", placeId)
      .executeTakeFirst();
    if (!place) problem("location", "Choose a street or place from the list");
    else {
      placeName = place.name;
      if (lat === null && lng === null) {
        lat = place.latitude;
        lng = place.longitude;
      }
    }
  }
  if ((lat === null) !== (lng === null)) {
    problem(lat === null ? "lat" : "lng", "Both latitude and longitude are needed");
  } else if (lat !== null && lng !== null) {
    const b = civic.config.village.bounds;
    if (!Number.isFinite(lat) || lat < -90 || lat > 90) problem("lat", "is not a valid latitude");
    else if (!Number.isFinite(lng) || lng < -180 || lng > 180) problem("lng", "is not a valid longitude");
    else if (lat < b.south || lat > b.north || lng < b.west || lng > b.east)
      problem("location", `The place must be within ${civic.config.village.name}`);
  } else if (!placeId && !locationText) {
    problem("location", "Show where the problem is: put a pin on the map, choose a street or describe the place");
  }

  // Sent while signed in, the report is the account's, and so is the address it is filed under (accounts/prefill.ts).
  const accountId = clean(input.accountId);
  const typedEmail = accountId ? null : clean(input.reporter.email);
  const email = accountId
    ? await accountAddress(db, accountId)
    : typedEmail === null
      ? null
      : normaliseEmail(typedEmail);
  if (typedEmail !== null && (email === null || textLength(email) > REPORT_LIMITS.email))
    problem("email", "Enter an email address like name@example.com");
  const name = clean(input.reporter.name);
  if (name && (textLength(name) > REPORT_LIMITS.name || HTML_TAG.test(name) || CONTROL.test(name)))
    problem("name", `must be plain text of at most ${REPORT_LIMITS.name} characters`);
  const phone = clean(input.reporter.phone);
  if (phone && (textLength(phone) > REPORT_LIMITS.phone || !PHONE.test(phone)))
    problem("phone", "Enter a phone number using digits, spaces and an optional +");

  // A link to media elsewhere, never fetched: only a plain http(s) link to a public host (media-url.ts).
  const linked = clean(input.mediaUrl);
  const media = linked ? checkMediaUrl(linked, new URL(civic.config.baseUrl).hostname) : null;
  if (media && "problem" in media) problem("media_url", media.problem);
  const mediaUrl = media && "url" in media ? media.url : null;

  let attributes: AttributeValues = {};
  const definitions = category ? categoryAttributes(category) : [];
  if (category) {
    const result = validateAttributes(definitions, input.attributes);
    attributes = result.values;
    problems.push(...result.problems);
  }

  const photos: ProcessedImage[] = [];
  const { maxPhotos, maxPhotoBytes } = civic.config.uploads;
  const given = input.photos.filter((p) => photoSize(p) > 0);
  if (given.length > maxPhotos) {
    problem("photos", maxPhotos === 0 ? "Photos are not accepted" : `Add at most ${maxPhotos} photos`);
  } else {
    for (const [i, photo] of given.entries()) {
      const checked = await checkPhoto(photo, i, maxPhotoBytes);
      if ("problem" in checked) problem("photos", checked.problem);
      else photos.push(checked.photo);
    }
  }

  if (problems.length > 0 || !category) {
    const count = problems.length;
    throw new AppError(
      "validation_failed",
      `The report could not be accepted: ${count === 1 ? "there is 1 problem" : `there are ${count} problems`}.`,
      { fields: problems },
    );
  }
  return {
    category,
    title,
    description,
    lat,
    lng,
    locationText,
    placeId,
    placeName,
    addressId: clean(input.addressId),
    attributes,
    definitions,
    email,
    name,
    phone,
    mediaUrl,
    photos,
  };
}

const REFERENCE_ATTEMPTS = 6;

/** The report an earlier submission of the same form token created, if there was one. */
async function replayOf(civic: Civic, submission: FormUse, notice: string): Promise<SubmittedReport | null> {
  const reference = await submission.earlier();
  if (reference === undefined) return null;
  const row = await civic.database.db
    .selectFrom("reports")
    .select("id")
    .where("reference", "=", reference)
    .executeTakeFirst();
  return row ? { id: row.id, reference, serviceNotice: notice, replayed: true } : null;
}

/**
 * Validates and stores a new report: photos are cleaned and stored first (content-addressed, so a failed
 * submission leaves at most an unreferenced file), then the report, its first "open" history entry, its photos
 * and its emails (confirmation, council forwarding) are written in one transaction. Throws
 * `validation_failed` with every field problem at once. A reference that is already taken (rare: ~8.5e11 values) is
 * replaced by a new one and the transaction retried. `options.newReference` replaces the generator (tests).
 * With `options.formSubmission` (web forms: the form's FormUse, core/http/single-use.tsx), the form token is
 * recorded in the same transaction, first: a replay of the token, even a concurrent one, creates nothing and
 * answers with the first submission's reference.
 */
export async function submitReport(
  civic: Civic,
  input: ReportSubmission,
  options: { newReference?: () => string; formSubmission?: FormUse } = {},
): Promise<SubmittedReport> {
  const makeReference = options.newReference ?? newReference;
  const c = await check(civic, input);
  const storage = mediaStorage(civic.config);
  for (const photo of c.photos) {
    await storage.put(photoKey(photo.hash, "full"), photo.full);
    await storage.put(photoKey(photo.hash, "thumb"), photo.thumb);
  }

  const { baseUrl } = civic.config;
  const notice = serviceNotice(civic.config.village.councilName);
  const gazetteer = await loadGazetteer(civic.database.db);
  const domain = new URL(baseUrl).hostname;
  const forwards = c.category.department_email !== null || c.category.department_id !== null;
  // The reporter's address is unconfirmed: its confirmation goes only within the mail policy's caps. Over them the
  // report is still stored and the answer is the same (core/mail/policy.ts).
  const confirm =
    c.email !== null &&
    (await admitConfirmation(civic.database.db, { secret: civic.config.sessionSecret, now: civic.now() }, c.email));

  for (let attempt = 1; ; attempt++) {
    const reference = makeReference();
    const now = civic.now();
    const at = now.toISOString();
    const facts: ReportMailFacts = {
      reference,
      title: c.title,
      description: c.description,
      categoryName: c.category.name,
      where: describePlace(c, gazetteer) ?? "Not given",
      whereInOurWords: describePlace(c, gazetteer, { reporterText: false }),
      lat: c.lat,
      lng: c.lng,
      link: `${baseUrl}/reports/${reference}`,
      baseUrl,
      villageName: civic.config.village.name,
      councilName: civic.config.village.councilName,
      contactEmail: civic.config.village.contactEmail,
      domain,
    };
    const mails: OutgoingMail[] = [];
    if (c.email && confirm) mails.push(confirmationMail(c.email, facts, notice));
    try {
      const id = await storeReport(civic.database, {
        row: {
          reference,
          category_code: c.category.code,
          title: c.title,
          description: c.description,
          latitude: c.lat,
          longitude: c.lng,
          location_text: c.locationText,
          place_id: c.placeId,
          address_id: c.addressId,
          attributes: JSON.stringify(c.attributes),
          status: "open",
          reporter_email: c.email,
          reporter_name: c.name,
          reporter_phone: c.phone,
          share_contact: input.reporter.shareContact && (c.email || c.phone) ? 1 : 0,
          device_id: clean(input.deviceId),
          account_id: clean(input.accountId),
          source: input.source,
          api_key_id: input.apiKeyId,
          created_at: at,
          updated_at: at,
          forwarded_at: null,
          forwarded_to: null,
          expected_at: null,
          media_url: c.mediaUrl,
        },
        banCandidates: await contributorBanCandidates(civic.database.db, {
          accountId: clean(input.accountId),
          addresses: [c.email],
        }),
        photos: c.photos.map((p, position) => ({
          position,
          hash: p.hash,
          width: p.width,
          height: p.height,
          content_type: p.contentType,
          created_at: at,
        })),
        mails,
        now,
        recordSubmission: options.formSubmission?.record,
        // The one forwarding path, in the report's own transaction (forward.ts).
        afterInsert: forwards ? async (tx, id) => void (await forwardReport(civic, tx, id, now)) : undefined,
      });
      // Its immediate alerts now (the report is committed), not at the next minute job. Guarded like the job's (one
      // scan row per report, one send row per alert and report); if this fails, no scan row was written and the job
      // sends them, so the report stands either way.
      await alertNewReport(civic, id, gazetteer).catch(() => 0);
      return { id, reference, serviceNotice: notice };
    } catch (error) {
      const replayed = options.formSubmission && (await replayOf(civic, options.formSubmission, notice));
      if (replayed) return replayed;
      if (attempt < REFERENCE_ATTEMPTS && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/**
 * One uploaded photo through the photo pipeline (core/media/images.ts: size limit, a real image of an accepted type,
 * EXIF stripped, derived sizes), or the problem to show on the form: the one home of the photo messages of the
 * report form and of residents' updates.
 */
export async function checkPhoto(
  photo: PhotoInput,
  index: number,
  maxPhotoBytes: number,
): Promise<{ photo: ProcessedImage } | { problem: string }> {
  const label = photoLabel(photo.filename, index);
  if (photoSize(photo) > maxPhotoBytes) return { problem: photoTooLarge(label, maxPhotoBytes) };
  try {
    return { photo: await processPhoto(photoSource(photo)) };
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    return { problem: `${label} ${error.message}` };
  }
}

function photoLabel(filename: string | undefined, index: number): string {
  return filename ? `“${filename.slice(0, 80)}”` : `Photo ${index + 1}`;
}

/** The problem of a photo over the size limit (also for one the upload stopped at the limit, core/media/uploads.ts). */
export function photoTooLarge(label: string, maxPhotoBytes: number): string {
  return `${label} is larger than ${Math.round(maxPhotoBytes / 1024 / 1024)} MB`;
}
