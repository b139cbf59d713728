/**
 * The reports feature's public entry: what other features may use of it (the dependency rules in
 * .dependency-cruiser.cjs let them import this file and no other of the folder).
 */
export { categoryAttributes } from "./attributes.js";
export type { AttributeDatatype, AttributeDefinition, AttributeValues } from "./attributes.js";
export { publicReadVersion } from "./data-version.js";
export { first, readFormBody } from "./form-body.js";
export { formSubmission, reportFormValues } from "./form-submission.js";
export { appIdempotency, reportResource } from "./idempotency.js";
export { loadKeptPhotos } from "./kept-photos.js";
export { REPORT_STATUSES, STATUS_LABELS, open311Status } from "./model.js";
export { reportPhotoUrl } from "./photos.js";
export { placeNames } from "./places.js";
export { describePlace, loadGazetteer } from "./place-words.js";
export type { GazetteerEntry } from "./place-words.js";
export { ReportThumbnail } from "./pages/common.js";
export { normaliseReference } from "./reference.js";
export { NEAR_RADIUS_M, PUBLIC_REPORT_COLUMNS } from "./repository.js";
export { listExtras } from "./repository.js";
export type { PublicReport, PublicReportColumns, Thumbnail } from "./repository.js";
export { NOT_BLANK, REPORT_PATTERNS, textLength, togetherRule } from "./field-patterns.js";
export { submitReport } from "./submit.js";
export { sentPagePath } from "./sent-page.js";
export type { ReportSubmission } from "./submit.js";
export { ownReports } from "./data-sources.js";
export { MEDIA_URL_MAX, mediaUrlPattern, shownMediaUrl } from "./media-url.js";
export { COUNCIL_KEY_PURPOSE, councilStatusWord, fetchServiceDefinition, fetchServices } from "./council-client.js";
export type { CouncilAttribute, CouncilService } from "./council-client.js";
export { councilStatusTable, DEFAULT_COUNCIL_STATUSES, isCouncilStatusTarget } from "./council-poll.js";
export type { CouncilStatusTarget } from "./council-poll.js";
