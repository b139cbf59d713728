import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

/**
 * Typed table interfaces for both dialects. Conventions that keep one migration set working on SQLite and
 * PostgreSQL:
 * - timestamps are UTC ISO 8601 strings (`2026-11-22T16:00:00.000Z`): TEXT on SQLite, timestamptz on
 *   PostgreSQL (read back as the same ISO string by the pg type parser in `database.ts`);
 * - booleans are integers 0/1;
 * - JSON values are TEXT holding JSON, parsed in repositories.
 */
export type Timestamp = string;
type Id = Generated<number>;

export interface PlacesTable {
  id: string;
  name: string;
  kind: "street" | "landmark";
  latitude: number;
  longitude: number;
}

export interface CouncillorsTable {
  id: string;
  name: string;
  role: string;
  ward: string;
  party: string | null;
  email: string;
  phone: string | null;
  surgery: string | null;
  /** JSON string[] */
  responsibilities: string;
  sort_order: number;
}

export interface ProjectsTable {
  id: string;
  title: string;
  summary: string;
  body: string;
  status: "planned" | "active" | "completed";
  started_on: string;
  lead: string;
  volunteers_wanted: number;
  /** JSON string[]: the roles volunteers can sign up for. */
  roles: ColumnType<string, string | undefined, string>;
  ends_on: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BusinessesTable {
  id: string;
  name: string;
  schema_type: string;
  category: string;
  description: string | null;
  street_address: string | null;
  locality: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  telephone: string | null;
  email: string | null;
  url: string | null;
  /** JSON array of schema.org OpeningHoursSpecification-like objects */
  opening_hours: string;
  /** JSON string[] */
  same_as: string;
  image: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when deleted: the row stays as a tombstone for the diff feed. */
  deleted_at: Timestamp | null;
  /**
   * What full-text search reads (migration 0028_search): name, category, the type in words, description and address,
   * written with the row by the business feature.
   */
  search_text: ColumnType<string, string | undefined, string>;
}

export interface BusinessChangesTable {
  seq: Id;
  business_id: string;
  kind: "added" | "updated" | "removed";
  changed_at: Timestamp;
}

export interface CategoriesTable {
  /** Open311 service_code */
  code: string;
  name: string;
  description: string;
  group_name: string | null;
  /** JSON string[] */
  keywords: string;
  department_name: string | null;
  department_email: string | null;
  /** JSON array of Open311 attribute definitions */
  attributes: string;
  is_public: number;
  sort_order: number;
  /** Set when an admin retires the category: no new reports; existing reports keep it. */
  retired_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  /** The department reports are forwarded to; department_name/department_email are its copy (src/catalogue). */
  department_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON array of the attribute definitions the category no longer asks, so earlier answers keep their label. */
  former_attributes: ColumnType<string, string | undefined, string>;
}

/** Council departments that reports are forwarded to (admin-managed). */
export interface DepartmentsTable {
  id: Generated<number>;
  name: string;
  email: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** How reports reach it (0040): "email" or "open311". */
  delivery: ColumnType<string, string | undefined, string>;
  /** The Open311 endpoint's base URL (…/requests.json is appended). */
  open311_endpoint: ColumnType<string | null, string | null | undefined, string | null>;
  /** The council's API key, sealed with the forwarding secret (src/core/sealed.ts); never in the clear. */
  open311_key_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  open311_jurisdiction: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON object: our category code → the council's service_code. */
  open311_services: ColumnType<string, string | undefined, string>;
  /** JSON object: the council's attribute code → our question's code. */
  open311_attributes: ColumnType<string, string | undefined, string>;
  /** JSON object (0042): the council's Open311 status → ours; `{}` is the default table (reports/council-poll.ts). */
  open311_statuses: ColumnType<string, string | undefined, string>;
}

/** One forwarding of a report to a department (0040), a job row for the Open311 sender. Written by reports only. */
export interface ReportForwardingsTable {
  id: Id;
  report_id: number;
  department_id: number | null;
  department_name: string;
  method: "email" | "open311";
  destination: string;
  service_code: string | null;
  idempotency_key: string;
  state: "pending" | "sent" | "failed";
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  locked_until: Timestamp | null;
  last_error: string | null;
  service_request_id: string | null;
  token: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  failed_at: Timestamp | null;
  /** What the council last said (0042): its status as it wrote it, its updated_datetime, a hash of its notes. */
  council_status: ColumnType<string | null, string | null | undefined, string | null>;
  council_updated_at: ColumnType<string | null, string | null | undefined, string | null>;
  council_notes_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last sync with the council (0042): when, and its failure in words (null when it went well). */
  synced_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  sync_error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Per department and query, the council's last entity tag (If-None-Match) and answer time (0042). Reports only. */
export interface CouncilPollsTable {
  id: Id;
  department_id: number;
  query_key: string;
  etag: string | null;
  polled_at: Timestamp;
  answered_at: Timestamp | null;
}

/** One row (id 1): bumped by triggers on every change to categories or departments. */
export interface CatalogueVersionTable {
  id: number;
  version: number;
  /** When the version was last bumped (migration 0027): the catalogue's last change. */
  changed_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

export type ReportStatus =
  "open" | "investigating" | "in_progress" | "action_scheduled" | "fixed" | "closed" | "duplicate" | "not_responsible";

export type ReportVisibility = "public" | "hidden" | "removed";

export interface ReportsTable {
  id: Id;
  /** Human-friendly reference number; the Open311 service_request_id. */
  reference: string;
  category_code: string;
  title: string;
  description: string;
  latitude: number | null;
  longitude: number | null;
  /** Address or description of the place as given by the reporter. */
  location_text: string | null;
  place_id: string | null;
  address_id: string | null;
  /** JSON object: attribute code -> string | string[] */
  attributes: string;
  status: ReportStatus;
  visibility: ReportVisibility;
  /** Private: never leaves the server except to the reporter and, with consent, the council. */
  reporter_email: string | null;
  reporter_name: string | null;
  reporter_phone: string | null;
  /** 1 when the reporter agreed that the council may see their contact details. */
  share_contact: number;
  device_id: string | null;
  account_id: string | null;
  source: "web" | "open311" | "demo";
  api_key_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  forwarded_at: Timestamp | null;
  forwarded_to: string | null;
  expected_at: Timestamp | null;
  /** Open311 media_url supplied by an API client (an image hosted elsewhere); null otherwise. */
  media_url: string | null;
  /** Moderation (src/moderation): when a moderator last changed what the public sees of it. */
  moderated_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  /** The reporter's own title/description, kept when a moderator redacted them (restorable by an admin). */
  original_title: ColumnType<string | null, string | null | undefined, string | null>;
  original_description: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 when the sender is on the ban list: stored as usual, never published. */
  withheld: ColumnType<number, number | undefined, number>;
  /** Staff: the staff account the report is assigned to. */
  assigned_to: ColumnType<string | null, string | null | undefined, string | null>;
  /** Staff: the report this one duplicates (its status is then "duplicate"). */
  duplicate_of: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the reporter stopped the update mails of this report (one-click unsubscribe); null while they get them. */
  updates_stopped_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

export interface ReportPhotosTable {
  id: Id;
  report_id: number;
  position: number;
  /** sha256 of the processed image; the storage key. */
  hash: string;
  width: number;
  height: number;
  content_type: string;
  created_at: Timestamp;
  visibility: ColumnType<ReportVisibility, ReportVisibility | undefined, ReportVisibility>;
  /** The resident's update it came with (0041); null for the report's own photos. */
  update_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Who made a report event (0033). */
export type ReportEventAuthor = "staff" | "council" | "resident" | "reporter" | "system";

/** What a report event is (0033). */
export type ReportEventKind = "report" | "status" | "update" | "seen" | "questionnaire" | "moderation";

export interface ReportUpdatesTable {
  id: Id;
  report_id: number;
  status: ReportStatus;
  previous_status: ReportStatus | null;
  /** Public note shown in the report's history. */
  note: string;
  created_at: Timestamp;
  visibility: ColumnType<ReportVisibility, ReportVisibility | undefined, ReportVisibility>;
  /** Who made it (0033): see ReportEventAuthor in src/reports/events.ts. */
  author_kind: ColumnType<ReportEventAuthor, ReportEventAuthor | undefined, ReportEventAuthor>;
  /** What happened (0033): see ReportEventKind in src/reports/events.ts. */
  event: ColumnType<ReportEventKind, ReportEventKind | undefined, ReportEventKind>;
  /** A moderation event's action ("hide", "redact", "hide-photo", …); null otherwise. */
  action: ColumnType<string | null, string | null | undefined, string | null>;
  /** Private: the account of a resident's or reporter's update (never shown). */
  author_account_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Private: the address a resident's or reporter's update was confirmed with (never shown). */
  author_email: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 for a record never in the public history (moderation, "seen too"). */
  internal: ColumnType<number, number | undefined, number>;
  /** Unique when given: the same event sent twice is recorded once. */
  event_key: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ModerationFlagsTable {
  id: Id;
  kind: string;
  item_id: string;
  reason: string;
  note: string | null;
  /** "account:<id>" or "client:" and a keyed hash of the client address salted with the item; never the address. */
  flagger: string;
  /** A keyed hash of the client address (IPv6 by /64) salted with the item; null on flags older than 0022. */
  client_key: string | null;
  created_at: Timestamp;
  resolved_at: Timestamp | null;
}

export interface ModerationDecisionsTable {
  id: Id;
  kind: string;
  item_id: string;
  action: string;
  reason: string;
  staff_account_id: string | null;
  subject_account_id: string | null;
  created_at: Timestamp;
}

export interface ModerationStrikesTable {
  id: Id;
  account_id: string;
  decision_id: number;
  created_at: Timestamp;
  overruled_at: Timestamp | null;
  overruled_by: string | null;
  overrule_reason: string | null;
}

export interface BannedSendersTable {
  id: Id;
  /** A lower-case address or a whole domain. */
  pattern: string;
  reason: string;
  created_by: string | null;
  created_at: Timestamp;
}

export interface OutboxTable {
  id: Id;
  /** What the message is, e.g. "report-confirmation", "report-forward". */
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  /** Stable Message-ID, so a retried send is recognisable as the same message. */
  message_id: string;
  created_at: Timestamp;
  attempts: number;
  next_attempt_at: Timestamp;
  /** A worker holds the message until this time while sending it. */
  locked_until: Timestamp | null;
  last_error: string | null;
  sent_at: Timestamp | null;
  /** Set when the message will never be sent: a permanent SMTP refusal, a suppressed address or too many attempts. */
  failed_at: Timestamp | null;
  /** JSON object of extra headers (e.g. List-Unsubscribe), or null. */
  headers: ColumnType<string | null, string | null | undefined, string | null>;
  /** aboutHash of the address of the person a message to someone else is about (0025), so erasure finds it. */
  about_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** Unique when given (0033): a message that must be queued once only, e.g. one per report event and recipient. */
  dedupe_key: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: Id;
  name: string;
  /** sha256 of the key; the key itself is shown once and never stored. */
  key_hash: string;
  /** First characters of the key, to tell keys apart in listings. */
  prefix: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface JobLeasesTable {
  /** The job's name. */
  name: string;
  /** The job is due from this time. */
  next_run_at: Timestamp;
  /** The process running the job now, while `leased_until` is in the future. */
  lease_owner: string | null;
  leased_until: Timestamp | null;
  last_started_at: Timestamp | null;
  last_finished_at: Timestamp | null;
  last_error: string | null;
}

export interface KeptPhotosTable {
  id: Id;
  /** sha256 of a photo stored for a report form that came back with problems. */
  hash: string;
  kept_at: Timestamp;
}

export interface IdempotencyKeysTable {
  /**
   * Whose key space: the submission paths that share keys and the client, e.g. "report:account:<id>",
   * "report:anonymous" (web form and app drafts), "open311:key:<api key id>" (core/http/idempotency.ts).
   */
  scope: string;
  key: string;
  /** sha256 of the request's content, so the same key with another body is recognised. */
  fingerprint: string;
  /** A random id of the request that holds the key while it runs. */
  owner: string;
  /** "running" while the first request runs, "done" once its response is stored. */
  state: string;
  status: number | null;
  /** JSON object of the response headers to replay (content-type, location). */
  headers: string | null;
  body: string | null;
  /** What the stored answer created, e.g. "report:<reference>": erased with it (forgetIdempotentAnswers). */
  resource: string | null;
  created_at: Timestamp;
  /** A running request holds the key until then; after that (a crashed process) another request may take it. */
  locked_until: Timestamp | null;
  expires_at: Timestamp;
}

/** An address that refused mail permanently (SMTP 5xx): nothing more is sent to it. Only a hash is kept. */
export interface MailSuppressionsTable {
  /** sha256 of the lower-cased address (see core/mail/suppressions.ts). */
  address_hash: string;
  /** Why, without the address: e.g. "550 at RCPT TO". */
  reason: string;
  created_at: Timestamp;
}

/** A form submission that succeeded, by its form token's nonce: a replay shows the same result. */
export interface FormSubmissionsTable {
  nonce: string;
  /** Which form, e.g. "report". */
  form: string;
  /** What the first submission produced, e.g. the report's reference. */
  result: string;
  created_at: Timestamp;
  /** After this the token has expired anyway, and the row is deleted. */
  expires_at: Timestamp;
}

export type Role = "resident" | "moderator" | "admin";

export interface AccountsTable {
  /** Random opaque id (reports.account_id refers to it). */
  id: string;
  /** Lower-case; unique. */
  email: string;
  name: string | null;
  role: ColumnType<Role, Role | undefined, Role>;
  /** argon2id PHC string, or null when the account signs in by email or passkey only. */
  password_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  email_verified_at: Timestamp | null;
  /** Set by staff: a suspended account cannot sign in. */
  suspended_at: Timestamp | null;
  suspended_reason: string | null;
}

export interface SessionsTable {
  id: Id;
  account_id: string;
  /** sha256 of the cookie's token; the token itself is never stored. */
  token_hash: string;
  /** Coarse device class ("Phone, Firefox"), never the full user agent. */
  device: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface EmailChallengesTable {
  id: Id;
  purpose: "sign-in" | "email-change" | "my-data";
  /** The address the message went to (for an email change: the new address). */
  email: string;
  account_id: string | null;
  handle_hash: string;
  code_hash: string | null;
  failed_attempts: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/**
 * Emailed links of every kind (migration 0026, core/links.ts): written only through core/links.ts. Only the sha256
 * of a link's token is kept.
 */
export interface EmailLinksTable {
  id: Id;
  /** What pressing the link's button does ("sign-in", "email-change-undo", a feature's confirmation...). */
  purpose: string;
  token_hash: string;
  /** The lower-case address the link was mailed to. */
  email: string;
  account_id: string | null;
  /** The feature row the link acts on (a volunteer id, a sign-in challenge id...). */
  ref: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Null: any number of uses until it expires. */
  max_uses: number | null;
  uses: ColumnType<number, number | undefined, number>;
  first_used_at: Timestamp | null;
  last_used_at: Timestamp | null;
  /** Ended for good (done another way, cancelled): never reopened. */
  revoked_at: Timestamp | null;
}

export interface PasskeysTable {
  /** The credential id, base64url. */
  id: string;
  account_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON string[] */
  transports: string;
  name: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

export interface WebauthnChallengesTable {
  handle_hash: string;
  challenge: string;
  account_id: string | null;
  expires_at: Timestamp;
}

export interface RateLimitCountersTable {
  key: string;
  /** Start of the current window, epoch milliseconds. */
  window_start: number;
  hits: number;
  /** Epoch milliseconds after which the row is stale. */
  expires_at: number;
}

export interface ProjectUpdatesTable {
  id: Id;
  project_id: string;
  title: string;
  body: string;
  posted_at: Timestamp;
}

export type IdeaStatus = "unconfirmed" | "open" | "under-consideration" | "adopted" | "not-taken-forward" | "done";

export interface IdeasTable {
  id: Id;
  title: string;
  description: string;
  category: string | null;
  place_id: string | null;
  location_text: string | null;
  photo_hash: string | null;
  status: IdeaStatus;
  visibility: ColumnType<ReportVisibility, ReportVisibility | undefined, ReportVisibility>;
  /** Staff's public response with the status. */
  response: string | null;
  project_id: string | null;
  account_id: string | null;
  /** The proposer's address when they had no account (never shown). */
  email: string | null;
  supports: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  published_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface IdeaSupportsTable {
  idea_id: number;
  account_id: string;
  created_at: Timestamp;
}

export interface VolunteersTable {
  id: Id;
  project_id: string | null;
  role: string | null;
  name: string;
  email: string;
  phone: string | null;
  interests: string;
  availability: string;
  consent_text: string;
  status: "unconfirmed" | "confirmed" | "withdrawn";
  /** A random value since migration 0026 (unique, not null); the mailed link is kept in email_links. */
  token_hash: string;
  account_id: string | null;
  created_at: Timestamp;
  confirmed_at: Timestamp | null;
  withdrawn_at: Timestamp | null;
}

export interface NewsletterSubscribersTable {
  id: Id;
  email: string;
  status: "unconfirmed" | "confirmed" | "unsubscribed";
  /** Random salt; the unsubscribe token is a keyed hash of it (see newsletter/tokens.ts). */
  unsubscribe_salt: string;
  consent_text: string;
  created_at: Timestamp;
  confirmed_at: Timestamp | null;
  unsubscribed_at: Timestamp | null;
}

export interface NewsletterIssuesTable {
  id: Id;
  title: string;
  /** Markdown. */
  body: string;
  status: "draft" | "sending" | "sent";
  created_at: Timestamp;
  updated_at: Timestamp;
  send_started_at: Timestamp | null;
  sent_at: Timestamp | null;
}

/** One row per issue and recipient, under a primary key: the guarantee of one mail per recipient. */
export interface NewsletterSendsTable {
  issue_id: number;
  subscriber_id: number;
  outbox_id: number | null;
  created_at: Timestamp;
}

/** Append-only: every staff action (who, what, which item, reason, when). */
export interface AuditLogTable {
  id: Id;
  at: Timestamp;
  /** The acting staff account; null for automatic actions. */
  actor_id: string | null;
  action: string;
  item_type: string;
  item_id: string;
  reason: string | null;
  /** JSON object */
  details: string;
}

/** Private notes staff keep on a report; never public. */
export interface StaffNotesTable {
  id: Id;
  report_id: number;
  author_id: string | null;
  body: string;
  created_at: Timestamp;
}

/** People who get a report's public updates by email (personal data). */
export interface ReportFollowersTable {
  id: Id;
  report_id: number;
  email: string;
  /** The salt of the unsubscribe token (reports/followers.ts); the confirmation link is in email_links (0026). */
  token_hash: string;
  created_at: Timestamp;
  confirmed_at: Timestamp | null;
}

/** A resident's update sent with an email address, waiting for its link's confirmation (0036). */
export interface ReportUpdateRequestsTable {
  id: Id;
  report_id: number;
  email: string;
  note: string;
  created_at: Timestamp;
  /** Its cleaned photo, if it has one, waiting with it (0041). */
  photo_hash: ColumnType<string | null, string | null | undefined, string | null>;
  photo_width: ColumnType<number | null, number | null | undefined, number | null>;
  photo_height: ColumnType<number | null, number | null | undefined, number | null>;
}

/** "I have seen this too" marks, one per person and report (reports/seen.ts, migration 0037; personal data). */
export interface ReportSeenTable {
  id: Id;
  report_id: number;
  /** `account:<id>`, `email:<keyed hash>` or `client:<keyed hash of the client address and day>`. */
  seer: string;
  account_id: string | null;
  email: string | null;
  created_at: Timestamp;
}

/** Alerts for new reports (reports/alerts.ts, migration 0028). */
export type ReportAlertScope = "village" | "near" | "street" | "category";
export type ReportAlertFrequency = "immediate" | "daily";

export interface ReportAlertsTable {
  id: Id;
  email: string;
  scope: ReportAlertScope;
  place_id: string | null;
  radius_m: number | null;
  category_code: string | null;
  frequency: ReportAlertFrequency;
  /** The salt of the unsubscribe token; the confirmation link is in email_links. */
  token_hash: string;
  created_at: Timestamp;
  confirmed_at: Timestamp | null;
}

/** A response template (issue 36): public update text for a status, in one category (or every one, null). */
export interface ResponseTemplatesTable {
  id: Id;
  title: string;
  category_code: string | null;
  status: ReportStatus;
  body: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** "Is it fixed?": one row per report and round (0038). */
export interface ReportQuestionnairesTable {
  id: Id;
  report_id: number;
  /** The report_updates row the round started from. */
  basis_id: number;
  sent_at: Timestamp;
  answer: "fixed" | "not-fixed" | null;
  answered_at: Timestamp | null;
  answer_update_id: number | null;
}

export interface ReportAlertScansTable {
  report_id: number;
  scanned_at: Timestamp;
}

export interface ReportAlertSendsTable {
  alert_id: number;
  report_id: number;
  sent_at: Timestamp;
}

export interface ReportAlertDigestsTable {
  alert_id: number;
  day: string;
  sent_at: Timestamp;
}

/** Visitor statistics (src/analytics): a random salt per day (YYYY-MM-DD, UTC), deleted two days later. */
export interface AnalyticsSaltsTable {
  day: string;
  salt: string;
  created_at: Timestamp;
}

/** A keyed hash per visitor of the current day, only to count unique visitors; rolled up into a count next day. */
export interface AnalyticsVisitorsTable {
  day: string;
  visitor: string;
}

export type AnalyticsKind = "page" | "referrer" | "device" | "visitors" | "endpoint";

/** Daily counts: page views by route pattern, referring sites, device classes, unique visitors, API/feed requests. */
export interface AnalyticsCountsTable {
  day: string;
  kind: AnalyticsKind;
  key: string;
  count: number;
}

/** Reports per category, status and visibility, spread over slots; kept by triggers (migration 0019_scale_counts). */
/** The public data's version, spread over slots; moved by triggers (migration 0020_public_data_version). */
export interface PublicDataVersionTable {
  slot: number;
  n: number;
}

export interface ReportCountsTable {
  category_code: string;
  status: ReportStatus;
  visibility: ReportVisibility;
  slot: number;
  n: number;
}

/** Reports with a position per near-here grid cell, category, status and visibility (migration 0028). */
export interface ReportMapCellsTable {
  cell: number | string;
  category_code: string;
  status: ReportStatus;
  visibility: ReportVisibility;
  /** The report id modulo 4 (migration 0032): one combination's reports spread over rows; readers add them up. */
  slot: number;
  n: number;
  lat_sum: number;
  lng_sum: number;
  /** Who changed the row last (migration 0043): a transaction id (PostgreSQL) or a rising stamp (SQLite). */
  changed: Generated<number>;
}

export interface SharedSecretsTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

/** Other addresses an account has proved it holds (0025): found by the data download and the erasure. */
export interface AccountAddressesTable {
  account_id: string;
  /** Normalised (lower-case) address. */
  email: string;
  /**
   * "former" (the account's address before a change), "added" (confirmed from its mailbox for this account), or
   * "my-data" (before issue 33: a my-data link opened while signed in; no longer written).
   */
  reason: string;
  created_at: Timestamp;
}

/** A map tile kept by the tile proxy (src/maps): its bytes are `tiles/{hash}.png` in the media store. */
export interface MapTilesTable {
  z: number;
  x: number;
  y: number;
  /** SHA-256 of the bytes, hex. */
  hash: string;
  content_type: string;
  bytes: number;
  /** When it was fetched from the upstream, epoch milliseconds. */
  fetched_at: number;
}

export interface DB {
  places: PlacesTable;
  councillors: CouncillorsTable;
  projects: ProjectsTable;
  businesses: BusinessesTable;
  business_changes: BusinessChangesTable;
  categories: CategoriesTable;
  departments: DepartmentsTable;
  report_forwardings: ReportForwardingsTable;
  council_polls: CouncilPollsTable;
  catalogue_version: CatalogueVersionTable;
  reports: ReportsTable;
  report_photos: ReportPhotosTable;
  report_updates: ReportUpdatesTable;
  outbox: OutboxTable;
  api_keys: ApiKeysTable;
  job_leases: JobLeasesTable;
  kept_photos: KeptPhotosTable;
  idempotency_keys: IdempotencyKeysTable;
  mail_suppressions: MailSuppressionsTable;
  form_submissions: FormSubmissionsTable;
  accounts: AccountsTable;
  account_addresses: AccountAddressesTable;
  sessions: SessionsTable;
  email_challenges: EmailChallengesTable;
  email_links: EmailLinksTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  rate_limit_counters: RateLimitCountersTable;
  project_updates: ProjectUpdatesTable;
  ideas: IdeasTable;
  idea_supports: IdeaSupportsTable;
  volunteers: VolunteersTable;
  newsletter_subscribers: NewsletterSubscribersTable;
  newsletter_issues: NewsletterIssuesTable;
  newsletter_sends: NewsletterSendsTable;
  moderation_flags: ModerationFlagsTable;
  moderation_decisions: ModerationDecisionsTable;
  moderation_strikes: ModerationStrikesTable;
  banned_senders: BannedSendersTable;
  audit_log: AuditLogTable;
  staff_notes: StaffNotesTable;
  report_followers: ReportFollowersTable;
  report_update_requests: ReportUpdateRequestsTable;
  report_seen: ReportSeenTable;
  report_alerts: ReportAlertsTable;
  report_alert_scans: ReportAlertScansTable;
  report_alert_sends: ReportAlertSendsTable;
  report_alert_digests: ReportAlertDigestsTable;
  response_templates: ResponseTemplatesTable;
  report_questionnaires: ReportQuestionnairesTable;
  analytics_salts: AnalyticsSaltsTable;
  analytics_visitors: AnalyticsVisitorsTable;
  analytics_counts: AnalyticsCountsTable;
  shared_secrets: SharedSecretsTable;
  report_counts: ReportCountsTable;
  report_map_cells: ReportMapCellsTable;
  public_data_version: PublicDataVersionTable;
  map_tiles: MapTilesTable;
}

export type Business = Selectable<BusinessesTable>;
export type NewBusiness = Insertable<BusinessesTable>;
export type BusinessUpdate = Updateable<BusinessesTable>;
export type Category = Selectable<CategoriesTable>;
export type Report = Selectable<ReportsTable>;
export type NewReport = Insertable<ReportsTable>;
export type ReportUpdate = Selectable<ReportUpdatesTable>;
export type ReportPhoto = Selectable<ReportPhotosTable>;
export type OutboxMessage = Selectable<OutboxTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Place = Selectable<PlacesTable>;
export type Councillor = Selectable<CouncillorsTable>;
export type Project = Selectable<ProjectsTable>;
export type Account = Selectable<AccountsTable>;
export type Session = Selectable<SessionsTable>;

/** Used by count(): PostgreSQL returns bigint, parsed to number in `database.ts`. */
export type Count = ColumnType<number, never, never>;
