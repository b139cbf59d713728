import { parseDegrees } from "../core/geo.js";
import type { PhotoInput } from "../core/media/images.js";
import { type FormBody, first } from "./form-body.js";
import type { ReportFormValues } from "./pages/form-fields.js";
import type { ReportSubmission } from "./submit.js";

/**
 * The report form's fields as they were typed, kept as text so that the form can show them again. The web form
 * (POST /report) and the app's drafts (POST /api/app/reports) send the same fields.
 */
export function reportFormValues(form: FormBody): ReportFormValues {
  const attributes: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(form.fields)) {
    const m = /^attribute\[(.{1,100})\]$/.exec(name);
    if (m?.[1]) attributes[m[1]] = list;
  }
  return {
    category: first(form, "category"),
    title: first(form, "title"),
    description: first(form, "description"),
    lat: first(form, "lat"),
    lng: first(form, "lng"),
    place: first(form, "place"),
    locationText: first(form, "location_text"),
    attributes,
    email: first(form, "email"),
    name: first(form, "name"),
    shareContact: first(form, "share_contact") === "yes",
  };
}

/**
 * What the report form's fields submit (for `submitReport`, which checks them): empty optional fields are null, the
 * coordinates are parsed (NaN when they are not numbers, for `submitReport` to refuse). `accountId` is the signed-in
 * person's, whose report it then is (the ban list applies to the account).
 */
export function formSubmission(
  values: ReportFormValues,
  photos: PhotoInput[],
  accountId: string | null,
): ReportSubmission {
  return {
    categoryCode: values.category,
    title: values.title,
    description: values.description,
    lat: parseDegrees(values.lat),
    lng: parseDegrees(values.lng),
    locationText: values.locationText || null,
    placeId: values.place || null,
    addressId: null,
    attributes: values.attributes,
    photos,
    mediaUrl: null,
    reporter: {
      email: values.email || null,
      name: values.name || null,
      phone: null,
      shareContact: values.shareContact,
    },
    deviceId: null,
    accountId,
    source: "web",
    apiKeyId: null,
  };
}
