import type { ReportSubmission } from "../../src/reports/submit.js";

/** A valid anonymous pothole report for `submitReport`, with the given fields replaced. */
export function reportSubmission(overrides: Partial<ReportSubmission> = {}): ReportSubmission {
  return {
    categoryCode: "pothole",
    title: "Pothole by the war memorial",
    description: "Deep hole on the corner.",
    lat: 50.9865,
    lng: -2.044,
    locationText: null,
    placeId: null,
    addressId: null,
    attributes: { road_or_pavement: "road" },
    photos: [],
    mediaUrl: null,
    reporter: { email: null, name: null, phone: null, shareContact: false },
    deviceId: null,
    accountId: null,
    source: "web",
    apiKeyId: null,
    ...overrides,
  };
}

/** The web report form's fields for a valid anonymous pothole report (the form token and timing aside). */
export function reportFormFields(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    category: "pothole",
    title: "Pothole by the war memorial",
    description: "Deep hole on the corner.",
    lat: "50.98650",
    lng: "-2.04400",
    place: "",
    location_text: "",
    "attribute[road_or_pavement]": "road",
    email: "",
    name: "",
    website: "",
    action: "send",
    ...overrides,
  };
}
